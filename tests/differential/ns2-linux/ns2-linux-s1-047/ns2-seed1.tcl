# ns2-linux-s1-047 (seed 1): dumbbell; 4.57 Mb/s; RTT 235 ms; buffer 19 pkt (0.21 BDP); access ×790; loss 0.00012; 1× highspeed, 1× bic, 1× udp_cbr; 45 s
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
$ns simplex-link $r(0) $r(1) 4568000 0.046920000 DropTail
$ns simplex-link $r(1) $r(0) 4568000 0.046920000 DropTail
$ns queue-limit $r(0) $r(1) 20
$ns queue-limit $r(1) $r(0) 100000
set qmon(0) [$ns monitor-queue $r(0) $r(1) ""]
set lrng [new RNG]
independent_stream $lrng 1001
set lu [new RandomVariable/Uniform]
$lu use-rng $lrng
set em [new ErrorModel]
$em set rate_ 0.00012
$em unit pkt
$em ranvar $lu
$ns lossmodel $em $r(0) $r(1)
$em drop-target [new Agent/Null]
set s(0) [$ns node]
set d(0) [$ns node]
$ns duplex-link $s(0) $r(0) 3607806400 0.035190000 DropTail
$ns duplex-link $r(1) $d(0) 3607806400 0.035190000 DropTail
$ns queue-limit $s(0) $r(0) 100000
$ns queue-limit $r(0) $s(0) 100000
$ns queue-limit $r(1) $d(0) 100000
$ns queue-limit $d(0) $r(1) 100000
set a(0) [new Agent/TCP/Linux]
set k(0) [new Agent/TCPSink/Sack1]
$a(0) set window_ 317
$ns attach-agent $s(0) $a(0)
$ns attach-agent $d(0) $k(0)
$ns connect $a(0) $k(0)
set app(0) [$a(0) attach-app FTP]
$ns at 0.0 "$a(0) select_ca highspeed"
$ns at 0.0 "$app(0) start"
set s(1) [$ns node]
set d(1) [$ns node]
$ns duplex-link $s(1) $r(0) 3607806400 0.051540000 DropTail
$ns duplex-link $r(1) $d(1) 3607806400 0.051540000 DropTail
$ns queue-limit $s(1) $r(0) 100000
$ns queue-limit $r(0) $s(1) 100000
$ns queue-limit $r(1) $d(1) 100000
$ns queue-limit $d(1) $r(1) 100000
set a(1) [new Agent/TCP/Linux]
set k(1) [new Agent/TCPSink/Sack1]
$a(1) set window_ 367
$ns attach-agent $s(1) $a(1)
$ns attach-agent $d(1) $k(1)
$ns connect $a(1) $k(1)
set app(1) [$a(1) attach-app FTP]
$ns at 0.026 "$a(1) select_ca bic"
$ns at 0.026 "$app(1) start"
set s(2) [$ns node]
set d(2) [$ns node]
$ns duplex-link $s(2) $r(0) 3607806400 0.035190000 DropTail
$ns duplex-link $r(1) $d(2) 3607806400 0.035190000 DropTail
$ns queue-limit $s(2) $r(0) 100000
$ns queue-limit $r(0) $s(2) 100000
$ns queue-limit $r(1) $d(2) 100000
$ns queue-limit $d(2) $r(1) 100000
set a(2) [new Agent/UDP]
$a(2) set packetSize_ 1500
set k(2) [new Agent/LossMonitor]
$ns attach-agent $s(2) $a(2)
$ns attach-agent $d(2) $k(2)
$ns connect $a(2) $k(2)
set app(2) [new Application/Traffic/CBR]
$app(2) set packetSize_ 1500
$app(2) set rate_ 1050611
$app(2) attach-agent $a(2)
$ns at 0.53 "$app(2) start"
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
    puts "udp 2 [$k(2) set bytes_]"
    puts "drops 0 [$qmon(0) set pdrops_]"
    exit 0
}
$ns at 45.0 "finish"
$ns run
