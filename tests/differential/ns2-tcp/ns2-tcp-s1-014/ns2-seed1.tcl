# ns2-tcp-s1-014 (seed 1): dumbbell; 21.3 Mb/s; RTT 183 ms; buffer 35 pkt (0.11 BDP); access ×1.11; loss 0.016; 1× Reno; 27.4 s
# Written by tests/differential/ns2.py; run with: ns <this file>
set ns [new Simulator]
proc independent_stream {rng run} {
    $rng seed 12345
    for {set i 0} {$i < $run} {incr i} { $rng next-substream }
}
independent_stream $defaultRNG 1
Agent/TCP set tcpTick_ 0.0001
Agent/TCP set overhead_ 0
Agent/TCP set maxcwnd_ 0
Agent/TCP set windowInit_ 2
Agent/TCP set minrto_ 0.2
Agent/TCP set maxrto_ 60
Agent/TCP set rtxcur_init_ 1.0
Agent/TCP set packetSize_ 1460
Agent/TCP set singledup_ 1
Agent/TCP/Newreno set newreno_changes1_ 1
Queue/DropTail set summarystats_ false
set r(0) [$ns node]
set r(1) [$ns node]
$ns simplex-link $r(0) $r(1) 21274000 0.036520000 DropTail
$ns simplex-link $r(1) $r(0) 21274000 0.036520000 DropTail
$ns queue-limit $r(0) $r(1) 36
$ns queue-limit $r(1) $r(0) 100000
set qmon(0) [$ns monitor-queue $r(0) $r(1) ""]
set lrng [new RNG]
independent_stream $lrng 1001
set lu [new RandomVariable/Uniform]
$lu use-rng $lrng
set em [new ErrorModel]
$em set rate_ 0.01555
$em unit pkt
$em ranvar $lu
$ns lossmodel $em $r(0) $r(1)
$em drop-target [new Agent/Null]
set s(0) [$ns node]
set d(0) [$ns node]
$ns duplex-link $s(0) $r(0) 23614140 0.027390000 DropTail
$ns duplex-link $r(1) $d(0) 23614140 0.027390000 DropTail
$ns queue-limit $s(0) $r(0) 100000
$ns queue-limit $r(0) $s(0) 100000
$ns queue-limit $r(1) $d(0) 100000
$ns queue-limit $d(0) $r(1) 100000
set a(0) [new Agent/TCP/Reno]
set k(0) [new Agent/TCPSink]
$a(0) set window_ 818
$ns attach-agent $s(0) $a(0)
$ns attach-agent $d(0) $k(0)
$ns connect $a(0) $k(0)
set app(0) [$a(0) attach-app FTP]
$ns at 0.0 "$app(0) start"
proc trace_cwnd {} {
    global ns a
    set line "cwnd [$ns now]"
    append line " [$a(0) set cwnd_]"
    puts $line
    $ns at [expr [$ns now] + 0.1] trace_cwnd
}
$ns at 0.1 trace_cwnd
proc finish {} {
    global a k qmon
    puts "tcp 0 [$a(0) set ack_] [$a(0) set nrexmitpack_] [$a(0) set nrexmit_]"
    puts "drops 0 [$qmon(0) set pdrops_]"
    exit 0
}
$ns at 27.4 "finish"
$ns run
