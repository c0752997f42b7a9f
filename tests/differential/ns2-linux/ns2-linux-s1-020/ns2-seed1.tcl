# ns2-linux-s1-020 (seed 1): dumbbell; 990 Mb/s; RTT 2.2 ms; buffer 37 pkt (0.2 BDP); access ×1.24; loss 0.00029; 2× reno, 1× scalable, 1× highspeed; 20 s
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
$ns simplex-link $r(0) $r(1) 989533000 0.000440000 DropTail
$ns simplex-link $r(1) $r(0) 989533000 0.000440000 DropTail
$ns queue-limit $r(0) $r(1) 38
$ns queue-limit $r(1) $r(0) 100000
set qmon(0) [$ns monitor-queue $r(0) $r(1) ""]
set lrng [new RNG]
independent_stream $lrng 1001
set lu [new RandomVariable/Uniform]
$lu use-rng $lrng
set em [new ErrorModel]
$em set rate_ 0.00029
$em unit pkt
$em ranvar $lu
$ns lossmodel $em $r(0) $r(1)
$em drop-target [new Agent/Null]
set s(0) [$ns node]
set d(0) [$ns node]
$ns duplex-link $s(0) $r(0) 1227020920 0.000330000 DropTail
$ns duplex-link $r(1) $d(0) 1227020920 0.000330000 DropTail
$ns queue-limit $s(0) $r(0) 100000
$ns queue-limit $r(0) $s(0) 100000
$ns queue-limit $r(1) $d(0) 100000
$ns queue-limit $d(0) $r(1) 100000
set a(0) [new Agent/TCP/Linux]
set k(0) [new Agent/TCPSink/Sack1]
$a(0) set window_ 537
$ns attach-agent $s(0) $a(0)
$ns attach-agent $d(0) $k(0)
$ns connect $a(0) $k(0)
set app(0) [$a(0) attach-app FTP]
$ns at 0.0 "$a(0) select_ca reno"
$ns at 0.0 "$app(0) start"
set s(1) [$ns node]
set d(1) [$ns node]
$ns duplex-link $s(1) $r(0) 1227020920 0.000330000 DropTail
$ns duplex-link $r(1) $d(1) 1227020920 0.000330000 DropTail
$ns queue-limit $s(1) $r(0) 100000
$ns queue-limit $r(0) $s(1) 100000
$ns queue-limit $r(1) $d(1) 100000
$ns queue-limit $d(1) $r(1) 100000
set a(1) [new Agent/TCP/Linux]
set k(1) [new Agent/TCPSink/Sack1]
$a(1) set window_ 537
$ns attach-agent $s(1) $a(1)
$ns attach-agent $d(1) $k(1)
$ns connect $a(1) $k(1)
set app(1) [$a(1) attach-app FTP]
$ns at 0.493 "$a(1) select_ca scalable"
$ns at 0.493 "$app(1) start"
set s(2) [$ns node]
set d(2) [$ns node]
$ns duplex-link $s(2) $r(0) 1227020920 0.000330000 DropTail
$ns duplex-link $r(1) $d(2) 1227020920 0.000330000 DropTail
$ns queue-limit $s(2) $r(0) 100000
$ns queue-limit $r(0) $s(2) 100000
$ns queue-limit $r(1) $d(2) 100000
$ns queue-limit $d(2) $r(1) 100000
set a(2) [new Agent/TCP/Linux]
set k(2) [new Agent/TCPSink/Sack1]
$a(2) set window_ 537
$ns attach-agent $s(2) $a(2)
$ns attach-agent $d(2) $k(2)
$ns connect $a(2) $k(2)
set app(2) [$a(2) attach-app FTP]
$ns at 0.539 "$a(2) select_ca highspeed"
$ns at 0.539 "$app(2) start"
set s(3) [$ns node]
set d(3) [$ns node]
$ns duplex-link $s(3) $r(0) 1227020920 0.000330000 DropTail
$ns duplex-link $r(1) $d(3) 1227020920 0.000330000 DropTail
$ns queue-limit $s(3) $r(0) 100000
$ns queue-limit $r(0) $s(3) 100000
$ns queue-limit $r(1) $d(3) 100000
$ns queue-limit $d(3) $r(1) 100000
set a(3) [new Agent/TCP/Linux]
set k(3) [new Agent/TCPSink/Sack1]
$a(3) set window_ 537
$ns attach-agent $s(3) $a(3)
$ns attach-agent $d(3) $k(3)
$ns connect $a(3) $k(3)
set app(3) [$a(3) attach-app FTP]
$ns at 0.024 "$a(3) select_ca reno"
$ns at 0.024 "$app(3) start"
proc trace_cwnd {} {
    global ns a
    set line "cwnd [$ns now]"
    append line " [$a(0) set cwnd_]"
    append line " [$a(1) set cwnd_]"
    append line " [$a(2) set cwnd_]"
    append line " [$a(3) set cwnd_]"
    puts $line
    $ns at [expr [$ns now] + 0.1] trace_cwnd
}
$ns at 0.1 trace_cwnd
proc finish {} {
    global a k qmon
    puts "tcp 0 [$a(0) set ack_] [$a(0) set nrexmitpack_] [$a(0) set nrexmit_]"
    puts "tcp 1 [$a(1) set ack_] [$a(1) set nrexmitpack_] [$a(1) set nrexmit_]"
    puts "tcp 2 [$a(2) set ack_] [$a(2) set nrexmitpack_] [$a(2) set nrexmit_]"
    puts "tcp 3 [$a(3) set ack_] [$a(3) set nrexmitpack_] [$a(3) set nrexmit_]"
    puts "drops 0 [$qmon(0) set pdrops_]"
    exit 0
}
$ns at 20.0 "finish"
$ns run
