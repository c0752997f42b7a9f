# ns2-linux-s1-024 (seed 1): parking lot; 1.98 Mb/s; RTT 267 ms; buffer 91 pkt (2.1 BDP); access ×434; 1× highspeed, 1× vegas, 2× bic, 1× udp_cbr; 40.1 s
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
$ns simplex-link $r(0) $r(1) 1976000 0.026700000 DropTail
$ns simplex-link $r(1) $r(0) 1976000 0.026700000 DropTail
$ns queue-limit $r(0) $r(1) 92
$ns queue-limit $r(1) $r(0) 100000
set qmon(0) [$ns monitor-queue $r(0) $r(1) ""]
$ns simplex-link $r(1) $r(2) 1976000 0.026700000 DropTail
$ns simplex-link $r(2) $r(1) 1976000 0.026700000 DropTail
$ns queue-limit $r(1) $r(2) 92
$ns queue-limit $r(2) $r(1) 100000
set qmon(1) [$ns monitor-queue $r(1) $r(2) ""]
set s(0) [$ns node]
set d(0) [$ns node]
$ns duplex-link $s(0) $r(0) 858078000 0.040050000 DropTail
$ns duplex-link $r(2) $d(0) 858078000 0.040050000 DropTail
$ns queue-limit $s(0) $r(0) 100000
$ns queue-limit $r(0) $s(0) 100000
$ns queue-limit $r(2) $d(0) 100000
$ns queue-limit $d(0) $r(2) 100000
set a(0) [new Agent/TCP/Linux]
set k(0) [new Agent/TCPSink/Sack1]
$a(0) set window_ 370
$ns attach-agent $s(0) $a(0)
$ns attach-agent $d(0) $k(0)
$ns connect $a(0) $k(0)
set app(0) [$a(0) attach-app FTP]
$ns at 0.0 "$a(0) select_ca highspeed"
$ns at 0.0 "$app(0) start"
set s(1) [$ns node]
set d(1) [$ns node]
$ns duplex-link $s(1) $r(0) 858078000 0.053400000 DropTail
$ns duplex-link $r(1) $d(1) 858078000 0.053400000 DropTail
$ns queue-limit $s(1) $r(0) 100000
$ns queue-limit $r(0) $s(1) 100000
$ns queue-limit $r(1) $d(1) 100000
$ns queue-limit $d(1) $r(1) 100000
set a(1) [new Agent/TCP/Linux]
set k(1) [new Agent/TCPSink/Sack1]
$a(1) set window_ 370
$ns attach-agent $s(1) $a(1)
$ns attach-agent $d(1) $k(1)
$ns connect $a(1) $k(1)
set app(1) [$a(1) attach-app FTP]
$ns at 0.827 "$a(1) select_ca vegas"
$ns at 0.827 "$app(1) start"
set s(2) [$ns node]
set d(2) [$ns node]
$ns duplex-link $s(2) $r(1) 858078000 0.053400000 DropTail
$ns duplex-link $r(2) $d(2) 858078000 0.053400000 DropTail
$ns queue-limit $s(2) $r(1) 100000
$ns queue-limit $r(1) $s(2) 100000
$ns queue-limit $r(2) $d(2) 100000
$ns queue-limit $d(2) $r(2) 100000
set a(2) [new Agent/TCP/Linux]
set k(2) [new Agent/TCPSink/Sack1]
$a(2) set window_ 370
$ns attach-agent $s(2) $a(2)
$ns attach-agent $d(2) $k(2)
$ns connect $a(2) $k(2)
set app(2) [$a(2) attach-app FTP]
$ns at 0.721 "$a(2) select_ca bic"
$ns at 0.721 "$app(2) start"
set s(3) [$ns node]
set d(3) [$ns node]
$ns duplex-link $s(3) $r(0) 858078000 0.040050000 DropTail
$ns duplex-link $r(2) $d(3) 858078000 0.040050000 DropTail
$ns queue-limit $s(3) $r(0) 100000
$ns queue-limit $r(0) $s(3) 100000
$ns queue-limit $r(2) $d(3) 100000
$ns queue-limit $d(3) $r(2) 100000
set a(3) [new Agent/TCP/Linux]
set k(3) [new Agent/TCPSink/Sack1]
$a(3) set window_ 370
$ns attach-agent $s(3) $a(3)
$ns attach-agent $d(3) $k(3)
$ns connect $a(3) $k(3)
set app(3) [$a(3) attach-app FTP]
$ns at 0.736 "$a(3) select_ca bic"
$ns at 0.736 "$app(3) start"
set s(4) [$ns node]
set d(4) [$ns node]
$ns duplex-link $s(4) $r(1) 858078000 0.053400000 DropTail
$ns duplex-link $r(2) $d(4) 858078000 0.053400000 DropTail
$ns queue-limit $s(4) $r(1) 100000
$ns queue-limit $r(1) $s(4) 100000
$ns queue-limit $r(2) $d(4) 100000
$ns queue-limit $d(4) $r(2) 100000
set a(4) [new Agent/UDP]
$a(4) set packetSize_ 1500
set k(4) [new Agent/LossMonitor]
$ns attach-agent $s(4) $a(4)
$ns attach-agent $d(4) $k(4)
$ns connect $a(4) $k(4)
set app(4) [new Application/Traffic/CBR]
$app(4) set packetSize_ 1500
$app(4) set rate_ 217052
$app(4) attach-agent $a(4)
$ns at 0.49 "$app(4) start"
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
    puts "udp 4 [$k(4) set bytes_]"
    puts "drops 0 [$qmon(0) set pdrops_]"
    puts "drops 1 [$qmon(1) set pdrops_]"
    exit 0
}
$ns at 40.1 "finish"
$ns run
