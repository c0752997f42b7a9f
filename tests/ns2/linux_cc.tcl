# ns-2.35 side of the congestion-control differential (tests/ns2/README.md, case (f)):
# one Agent/TCP/Linux flow running a Linux 2.6.22 congestion-control module
# (select_ca), with timestamps and a SACK sink, over
#
#   sender -(access 10x the bottleneck, 1 ms)-> r -(bottleneck, DropTail qlim)-> sink
#
# usage: ns linux_cc.tcl key=value ...   (every key has a default below)
# prints "cwnd T SEGMENTS" every `sample` seconds, then "acked N" (highest cumulative
# ACK, segments from 0), "drops N" and "departures N" at the bottleneck.

array set opt {
    cc reno  neck_bw 1Gb  neck_delay 24ms  access_bw 10Gb  access_delay 1ms
    qlim 1000  window 20000  duration 60  sample 0.1  mss 1460
}
source [file join [file dirname [info script]] common.tcl]
parse_options linux_cc.tcl

set ns [new Simulator]

# As common.tcl's match_tcplab_tcp, for TCP/Linux: no send overhead (select_ca sets
# TCP/Linux's RTT clock to 1 ms whatever tcpTick_ says), min RTO 200 ms, initial RTO 1 s, IW 2 (Linux 2.6's initial window for this
# MSS is 2 or 3; both sides say 2), `window_` the receive window in segments.
match_tcplab_tcp $opt(window) 2 0.2 60 1.0
Agent/TCP set packetSize_ $opt(mss)
Agent/TCP/Linux set timestamps_ true
Agent/TCPSink set ts_echo_rfc1323_ true
Queue/DropTail set summarystats_ false

set src [$ns node]
set r [$ns node]
set dst [$ns node]
$ns duplex-link $src $r $opt(access_bw) $opt(access_delay) DropTail
$ns queue-limit $src $r 1000000
$ns queue-limit $r $src 1000000
$ns simplex-link $r $dst $opt(neck_bw) $opt(neck_delay) DropTail
$ns simplex-link $dst $r $opt(neck_bw) $opt(neck_delay) DropTail
$ns queue-limit $r $dst [droptail_limit $opt(qlim)]
$ns queue-limit $dst $r 1000000
set qmon [$ns monitor-queue $r $dst ""]

set tcp [new Agent/TCP/Linux]
set sink [new Agent/TCPSink/Sack1]
$ns attach-agent $src $tcp
$ns attach-agent $dst $sink
$ns connect $tcp $sink
set ftp [$tcp attach-app FTP]
$ns at 0 "$tcp select_ca $opt(cc)"
$ns at 0 "$ftp start"

proc sample {} {
    global ns tcp opt
    puts "cwnd [format %.3f [$ns now]] [$tcp set cwnd_]"
    $ns at [expr [$ns now] + $opt(sample)] sample
}
$ns at $opt(sample) sample

proc finish {} {
    global tcp qmon
    puts "acked [$tcp set ack_]"
    puts "drops [$qmon set pdrops_]"
    puts "departures [$qmon set pdepartures_]"
    exit 0
}
$ns at $opt(duration) finish
$ns run
