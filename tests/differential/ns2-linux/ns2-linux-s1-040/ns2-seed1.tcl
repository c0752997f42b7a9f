# ns2-linux-s1-040 (seed 1): parking lot; 21.3 Mb/s; RTT 58.7 ms; buffer 18 pkt (0.17 BDP); access ×824; loss 0.015; 1× scalable, 1× highspeed; 20 s
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
Agent/TCP/Linux set timestamps_ true
Agent/TCPSink set ts_echo_rfc1323_ true
set r(0) [$ns node]
set r(1) [$ns node]
set r(2) [$ns node]
$ns simplex-link $r(0) $r(1) 21279000 0.005870000 DropTail
$ns simplex-link $r(1) $r(0) 21279000 0.005870000 DropTail
$ns queue-limit $r(0) $r(1) 19
$ns queue-limit $r(1) $r(0) 100000
set qmon(0) [$ns monitor-queue $r(0) $r(1) ""]
$ns simplex-link $r(1) $r(2) 21279000 0.005870000 DropTail
$ns simplex-link $r(2) $r(1) 21279000 0.005870000 DropTail
$ns queue-limit $r(1) $r(2) 19
$ns queue-limit $r(2) $r(1) 100000
set qmon(1) [$ns monitor-queue $r(1) $r(2) ""]
set lrng [new RNG]
independent_stream $lrng 1001
set lu [new RandomVariable/Uniform]
$lu use-rng $lrng
set em [new ErrorModel]
$em set rate_ 0.01507
$em unit pkt
$em ranvar $lu
$ns lossmodel $em $r(0) $r(1)
$em drop-target [new Agent/Null]
set s(0) [$ns node]
set d(0) [$ns node]
$ns duplex-link $s(0) $r(0) 17539854120 0.008805000 DropTail
$ns duplex-link $r(2) $d(0) 17539854120 0.008805000 DropTail
$ns queue-limit $s(0) $r(0) 100000
$ns queue-limit $r(0) $s(0) 100000
$ns queue-limit $r(2) $d(0) 100000
$ns queue-limit $d(0) $r(2) 100000
set a(0) [new Agent/TCP/Linux]
set k(0) [new Agent/TCPSink/Sack1]
$a(0) set window_ 345
$ns attach-agent $s(0) $a(0)
$ns attach-agent $d(0) $k(0)
$ns connect $a(0) $k(0)
set app(0) [$a(0) attach-app FTP]
$ns at 0.0 "$a(0) select_ca scalable"
$ns at 0.0 "$app(0) start"
set s(1) [$ns node]
set d(1) [$ns node]
$ns duplex-link $s(1) $r(0) 17539854120 0.011740000 DropTail
$ns duplex-link $r(1) $d(1) 17539854120 0.011740000 DropTail
$ns queue-limit $s(1) $r(0) 100000
$ns queue-limit $r(0) $s(1) 100000
$ns queue-limit $r(1) $d(1) 100000
$ns queue-limit $d(1) $r(1) 100000
set a(1) [new Agent/TCP/Linux]
set k(1) [new Agent/TCPSink/Sack1]
$a(1) set window_ 345
$ns attach-agent $s(1) $a(1)
$ns attach-agent $d(1) $k(1)
$ns connect $a(1) $k(1)
set app(1) [$a(1) attach-app FTP]
$ns at 0.679 "$a(1) select_ca highspeed"
$ns at 0.679 "$app(1) start"
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
    puts "drops 1 [$qmon(1) set pdrops_]"
    exit 0
}
$ns at 20.0 "finish"
$ns run
