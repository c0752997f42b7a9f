# ns-2 side of the SCTP differential (sctp.py): one association from a to b over
#   a -(100 Mb/s, access_delay)- r -(bottleneck, optional random loss before its queue)- b
# carrying a file of `bytes` written as messages of `message` bytes (one `send` per
# message, so ns-2 bundles them as tcplab does). Prints, from the trace:
#   "first_data T" (first DATA packet leaving a), "last_data T" (last DATA packet
#   reaching b), "packets N" and "bytes B" (DATA-carrying packets leaving a, IP bytes),
#   "all_packets N" and "all_bytes B" (every packet leaving a).
# usage: ns sctp.tcl key=value ...

source [file join [file dirname [info script]] common.tcl]

array set opt {
    bytes 1000000  message 1452  neck_bw 10Mb  neck_delay 49ms  loss 0  seed 1
    duration 600  streams 1  access_delay 1ms  rwnd 1000000000
}
parse_options sctp.tcl

set ns [new Simulator]
seed_default_rng $opt(seed)
set trace_file [file join [pwd] sctp-[pid].tr]
set tf [open $trace_file w]

set a [$ns node]
set r [$ns node]
set b [$ns node]
$ns duplex-link $a $r 100Mb $opt(access_delay) DropTail
$ns duplex-link $r $b $opt(neck_bw) $opt(neck_delay) DropTail
foreach {x y} [list $a $r $r $a $r $b $b $r] { $ns queue-limit $x $y 100000 }
$ns trace-queue $a $r $tf
$ns trace-queue $r $b $tf

if {$opt(loss) > 0} {
    add_random_loss $ns $r $b $opt(loss) $opt(seed)
}

# RFC 9260 as tcplab models it: the chunk size is the message plus its 16-byte
# header; ssthresh starts unbounded (tcplab: no initial ssthresh; ns-2's default is
# 64 KB); windows that never limit; delayed SACKs every 2nd packet or 200 ms, Max.Burst
# 4, RTO 3/1/60 s, fast retransmit after 3 miss indications are ns-2's defaults too.
set s [new Agent/SCTP]
$s set mtu_ 1500
$s set dataChunkSize_ [expr {$opt(message) + 16}]
$s set initialSsthresh_ 1000000000
$s set initialRwnd_ $opt(rwnd)
$s set numOutStreams_ $opt(streams)
$ns attach-agent $a $s
set sink [new Agent/SCTP]
$sink set initialRwnd_ $opt(rwnd)
$ns attach-agent $b $sink
$ns connect $s $sink

proc write_file {} {
    global s opt
    set left $opt(bytes)
    while {$left > 0} {
        set m [expr {$left < $opt(message) ? $left : $opt(message)}]
        $s send $m
        set left [expr {$left - $m}]
    }
}

proc finish {} {
    global ns tf trace_file
    $ns flush-trace
    close $tf
    # DATA-carrying packets are those larger than a SACK-only or control packet.
    set first ""; set last ""; set n 0; set bytes 0; set all 0; set all_bytes 0
    set f [open $trace_file r]
    while {[gets $f line] >= 0} {
        set w [split $line " "]
        set ev [lindex $w 0]; set t [lindex $w 1]; set from [lindex $w 2]; set to [lindex $w 3]
        set size [lindex $w 5]
        if {$ev == "-" && $from == 0 && $to == 1} {
            incr all; incr all_bytes $size
            if {$size > 60} {
                if {$first == ""} { set first $t }
                incr n; incr bytes $size
            }
        }
        if {$ev == "r" && $from == 1 && $to == 2 && $size > 60} { set last $t }
    }
    close $f
    file delete $trace_file
    puts "first_data $first"
    puts "last_data $last"
    puts "packets $n"
    puts "bytes $bytes"
    puts "all_packets $all"
    puts "all_bytes $all_bytes"
    exit 0
}

$ns at 0.0 "write_file"
$ns at $opt(duration) "finish"
$ns run
