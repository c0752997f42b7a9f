# ns-2 (2.35) version of tcplab's dumbbell benchmarks, configured to model what the
# tcplab scenario models (see benchmarks/README.md, "Matching the tools"):
#   sender i -> access -> R1 -> bottleneck -> R2 -> access -> receiver i
#   NewReno one-way TCP (no handshake), 1460-byte segments (1500-byte IP packets),
#   an ACK per segment (TCPSink), window_ far above BDP + queue, DropTail in packets.
#
# usage: ns dumbbell.tcl FLOWS ACCESS_BW ACCESS_DELAY NECK_BW NECK_DELAY NECK_QUEUE \
#                        DURATION START_SPACING IW [SENDER_DELAY_MOD_MS]
# prints one line per flow: "flow I START_S ACKED_SEGMENTS", then "drops N".
# With SENDER_DELAY_MOD_MS > 0 sender i's access delay is 1 + (i mod that) ms (B3).

if {$argc < 9} {
    puts stderr "usage: ns dumbbell.tcl FLOWS ACCESS_BW ACCESS_DELAY NECK_BW NECK_DELAY NECK_QUEUE DURATION START_SPACING IW \[SENDER_DELAY_MOD_MS\]"
    exit 2
}
set flows      [lindex $argv 0]
set access_bw  [lindex $argv 1]
set access_dl  [lindex $argv 2]
set neck_bw    [lindex $argv 3]
set neck_dl    [lindex $argv 4]
set neck_q     [lindex $argv 5]
set duration   [lindex $argv 6]
set spacing    [lindex $argv 7]
set iw         [lindex $argv 8]
set delay_mod  0
if {$argc > 9} { set delay_mod [lindex $argv 9] }

set ns [new Simulator]

# TCP defaults shared by every flow (tcplab: transport options in the scenario).
Agent/TCP set packetSize_ 1460          ;# payload; ns-2 adds 40 B of TCP/IP header
Agent/TCP set window_ 100000            ;# receive window never limits
Agent/TCP set maxcwnd_ 0
Agent/TCP set windowInit_ $iw
Agent/TCP set tcpTick_ 0.000001         ;# fine RTT clock, like tcplab's ns timer
Agent/TCP set minrto_ 0.2
Agent/TCP set maxrto_ 60
Agent/TCP set rtxcur_init_ 1.0          ;# RFC 6298 initial RTO
Agent/TCP set overhead_ 0
Queue/DropTail set summarystats_ false

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 $neck_bw $neck_dl DropTail
# neck_q counts packets waiting besides the one in transmission, as tcplab's limit;
# ns-2's DropTail keeps at most queue-limit - 1 waiting (drop-tail.cc: length + 1 >= qlim_).
$ns queue-limit $r1 $r2 [expr {$neck_q + 1}]
$ns queue-limit $r2 $r1 [expr {$neck_q + 1}]

set qmon [$ns monitor-queue $r1 $r2 ""]

for {set i 0} {$i < $flows} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    set dl $access_dl
    if {$delay_mod > 0} { set dl [expr 1 + ($i % $delay_mod)]ms }
    $ns duplex-link $s($i) $r1 $access_bw $dl DropTail
    $ns duplex-link $r2 $d($i) $access_bw $access_dl DropTail
    $ns queue-limit $s($i) $r1 100000
    $ns queue-limit $r1 $s($i) 100000
    $ns queue-limit $r2 $d($i) 100000
    $ns queue-limit $d($i) $r2 100000
    set tcp($i) [new Agent/TCP/Newreno]
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    set start($i) [expr $i * $spacing]
    $ns at $start($i) "$ftp($i) start"
}

proc finish {} {
    global flows tcp start qmon
    for {set i 0} {$i < $flows} {incr i} {
        puts "flow $i $start($i) [$tcp($i) set ack_]"
    }
    puts "drops [$qmon set pdrops_]"
    puts "departures [$qmon set pdepartures_]"
    exit 0
}
$ns at $duration "finish"
$ns run
