# ns2-tcp-s1-050 (seed 1): dumbbell; 3.79 Mb/s; RTT 16.4 ms; buffer 2 pkt (0.39 BDP); access ×37.8; loss 0.00095; fixed RTO 25 ms; 2× Newreno; 20 s
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
Agent/TCP set minrto_ 0.025
Agent/TCP set maxrto_ 0.025
Agent/TCP set rtxcur_init_ 0.025
Agent/TCP set packetSize_ 1460
Agent/TCP set singledup_ 1
Agent/TCP/Newreno set newreno_changes1_ 1
Queue/DropTail set summarystats_ false
set r(0) [$ns node]
set r(1) [$ns node]
$ns simplex-link $r(0) $r(1) 3787000 0.003280000 DropTail
$ns simplex-link $r(1) $r(0) 3787000 0.003280000 DropTail
$ns queue-limit $r(0) $r(1) 3
$ns queue-limit $r(1) $r(0) 100000
set qmon(0) [$ns monitor-queue $r(0) $r(1) ""]
set lrng [new RNG]
independent_stream $lrng 1001
set lu [new RandomVariable/Uniform]
$lu use-rng $lrng
set em [new ErrorModel]
$em set rate_ 0.00095
$em unit pkt
$em ranvar $lu
$ns lossmodel $em $r(0) $r(1)
$em drop-target [new Agent/Null]
set s(0) [$ns node]
set d(0) [$ns node]
$ns duplex-link $s(0) $r(0) 143110730 0.002460000 DropTail
$ns duplex-link $r(1) $d(0) 143110730 0.002460000 DropTail
$ns queue-limit $s(0) $r(0) 100000
$ns queue-limit $r(0) $s(0) 100000
$ns queue-limit $r(1) $d(0) 100000
$ns queue-limit $d(0) $r(1) 100000
set a(0) [new Agent/TCP/Newreno]
set k(0) [new Agent/TCPSink]
$a(0) set window_ 115
$ns attach-agent $s(0) $a(0)
$ns attach-agent $d(0) $k(0)
$ns connect $a(0) $k(0)
set app(0) [$a(0) attach-app FTP]
$ns at 0.0 "$app(0) start"
set s(1) [$ns node]
set d(1) [$ns node]
$ns duplex-link $s(1) $r(0) 143110730 0.002460000 DropTail
$ns duplex-link $r(1) $d(1) 143110730 0.002460000 DropTail
$ns queue-limit $s(1) $r(0) 100000
$ns queue-limit $r(0) $s(1) 100000
$ns queue-limit $r(1) $d(1) 100000
$ns queue-limit $d(1) $r(1) 100000
set a(1) [new Agent/TCP/Newreno]
set k(1) [new Agent/TCPSink]
$a(1) set window_ 115
$ns attach-agent $s(1) $a(1)
$ns attach-agent $d(1) $k(1)
$ns connect $a(1) $k(1)
set app(1) [$a(1) attach-app FTP]
$ns at 0.152 "$app(1) start"
proc trace_cwnd {} {
    global ns a
    set line "cwnd [$ns now]"
    append line " [$a(0) set cwnd_]"
    append line " [$a(1) set cwnd_]"
    puts $line
    $ns at [expr [$ns now] + 0.1] trace_cwnd
}
$ns at 0.1 trace_cwnd
proc finish {} {
    global a k qmon
    puts "tcp 0 [$a(0) set ack_] [$a(0) set nrexmitpack_] [$a(0) set nrexmit_]"
    puts "tcp 1 [$a(1) set ack_] [$a(1) set nrexmitpack_] [$a(1) set nrexmit_]"
    puts "drops 0 [$qmon(0) set pdrops_]"
    exit 0
}
$ns at 20.0 "finish"
$ns run
