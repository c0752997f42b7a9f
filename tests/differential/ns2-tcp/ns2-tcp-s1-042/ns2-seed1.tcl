# ns2-tcp-s1-042 (seed 1): dumbbell; 2.89 Mb/s; RTT 151 ms; buffer 5 pkt (0.14 BDP); access ×11.2; loss 0.026; 100× Newreno; 22.7 s
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
$ns simplex-link $r(0) $r(1) 2889000 0.030280000 DropTail
$ns simplex-link $r(1) $r(0) 2889000 0.030280000 DropTail
$ns queue-limit $r(0) $r(1) 6
$ns queue-limit $r(1) $r(0) 100000
set qmon(0) [$ns monitor-queue $r(0) $r(1) ""]
set lrng [new RNG]
independent_stream $lrng 1001
set lu [new RandomVariable/Uniform]
$lu use-rng $lrng
set em [new ErrorModel]
$em set rate_ 0.02601
$em unit pkt
$em ranvar $lu
$ns lossmodel $em $r(0) $r(1)
$em drop-target [new Agent/Null]
set s(0) [$ns node]
set d(0) [$ns node]
$ns duplex-link $s(0) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(0) 32212350 0.022710000 DropTail
$ns queue-limit $s(0) $r(0) 100000
$ns queue-limit $r(0) $s(0) 100000
$ns queue-limit $r(1) $d(0) 100000
$ns queue-limit $d(0) $r(1) 100000
set a(0) [new Agent/TCP/Newreno]
set k(0) [new Agent/TCPSink]
$a(0) set window_ 183
$ns attach-agent $s(0) $a(0)
$ns attach-agent $d(0) $k(0)
$ns connect $a(0) $k(0)
set app(0) [$a(0) attach-app FTP]
$ns at 0.0 "$app(0) start"
set s(1) [$ns node]
set d(1) [$ns node]
$ns duplex-link $s(1) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(1) 32212350 0.022710000 DropTail
$ns queue-limit $s(1) $r(0) 100000
$ns queue-limit $r(0) $s(1) 100000
$ns queue-limit $r(1) $d(1) 100000
$ns queue-limit $d(1) $r(1) 100000
set a(1) [new Agent/TCP/Newreno]
set k(1) [new Agent/TCPSink]
$a(1) set window_ 183
$ns attach-agent $s(1) $a(1)
$ns attach-agent $d(1) $k(1)
$ns connect $a(1) $k(1)
set app(1) [$a(1) attach-app FTP]
$ns at 0.262 "$app(1) start"
set s(2) [$ns node]
set d(2) [$ns node]
$ns duplex-link $s(2) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(2) 32212350 0.022710000 DropTail
$ns queue-limit $s(2) $r(0) 100000
$ns queue-limit $r(0) $s(2) 100000
$ns queue-limit $r(1) $d(2) 100000
$ns queue-limit $d(2) $r(1) 100000
set a(2) [new Agent/TCP/Newreno]
set k(2) [new Agent/TCPSink]
$a(2) set window_ 183
$ns attach-agent $s(2) $a(2)
$ns attach-agent $d(2) $k(2)
$ns connect $a(2) $k(2)
set app(2) [$a(2) attach-app FTP]
$ns at 0.235 "$app(2) start"
set s(3) [$ns node]
set d(3) [$ns node]
$ns duplex-link $s(3) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(3) 32212350 0.022710000 DropTail
$ns queue-limit $s(3) $r(0) 100000
$ns queue-limit $r(0) $s(3) 100000
$ns queue-limit $r(1) $d(3) 100000
$ns queue-limit $d(3) $r(1) 100000
set a(3) [new Agent/TCP/Newreno]
set k(3) [new Agent/TCPSink]
$a(3) set window_ 183
$ns attach-agent $s(3) $a(3)
$ns attach-agent $d(3) $k(3)
$ns connect $a(3) $k(3)
set app(3) [$a(3) attach-app FTP]
$ns at 0.706 "$app(3) start"
set s(4) [$ns node]
set d(4) [$ns node]
$ns duplex-link $s(4) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(4) 32212350 0.022710000 DropTail
$ns queue-limit $s(4) $r(0) 100000
$ns queue-limit $r(0) $s(4) 100000
$ns queue-limit $r(1) $d(4) 100000
$ns queue-limit $d(4) $r(1) 100000
set a(4) [new Agent/TCP/Newreno]
set k(4) [new Agent/TCPSink]
$a(4) set window_ 183
$ns attach-agent $s(4) $a(4)
$ns attach-agent $d(4) $k(4)
$ns connect $a(4) $k(4)
set app(4) [$a(4) attach-app FTP]
$ns at 0.355 "$app(4) start"
set s(5) [$ns node]
set d(5) [$ns node]
$ns duplex-link $s(5) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(5) 32212350 0.022710000 DropTail
$ns queue-limit $s(5) $r(0) 100000
$ns queue-limit $r(0) $s(5) 100000
$ns queue-limit $r(1) $d(5) 100000
$ns queue-limit $d(5) $r(1) 100000
set a(5) [new Agent/TCP/Newreno]
set k(5) [new Agent/TCPSink]
$a(5) set window_ 183
$ns attach-agent $s(5) $a(5)
$ns attach-agent $d(5) $k(5)
$ns connect $a(5) $k(5)
set app(5) [$a(5) attach-app FTP]
$ns at 0.75 "$app(5) start"
set s(6) [$ns node]
set d(6) [$ns node]
$ns duplex-link $s(6) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(6) 32212350 0.022710000 DropTail
$ns queue-limit $s(6) $r(0) 100000
$ns queue-limit $r(0) $s(6) 100000
$ns queue-limit $r(1) $d(6) 100000
$ns queue-limit $d(6) $r(1) 100000
set a(6) [new Agent/TCP/Newreno]
set k(6) [new Agent/TCPSink]
$a(6) set window_ 183
$ns attach-agent $s(6) $a(6)
$ns attach-agent $d(6) $k(6)
$ns connect $a(6) $k(6)
set app(6) [$a(6) attach-app FTP]
$ns at 0.217 "$app(6) start"
set s(7) [$ns node]
set d(7) [$ns node]
$ns duplex-link $s(7) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(7) 32212350 0.022710000 DropTail
$ns queue-limit $s(7) $r(0) 100000
$ns queue-limit $r(0) $s(7) 100000
$ns queue-limit $r(1) $d(7) 100000
$ns queue-limit $d(7) $r(1) 100000
set a(7) [new Agent/TCP/Newreno]
set k(7) [new Agent/TCPSink]
$a(7) set window_ 183
$ns attach-agent $s(7) $a(7)
$ns attach-agent $d(7) $k(7)
$ns connect $a(7) $k(7)
set app(7) [$a(7) attach-app FTP]
$ns at 0.534 "$app(7) start"
set s(8) [$ns node]
set d(8) [$ns node]
$ns duplex-link $s(8) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(8) 32212350 0.022710000 DropTail
$ns queue-limit $s(8) $r(0) 100000
$ns queue-limit $r(0) $s(8) 100000
$ns queue-limit $r(1) $d(8) 100000
$ns queue-limit $d(8) $r(1) 100000
set a(8) [new Agent/TCP/Newreno]
set k(8) [new Agent/TCPSink]
$a(8) set window_ 183
$ns attach-agent $s(8) $a(8)
$ns attach-agent $d(8) $k(8)
$ns connect $a(8) $k(8)
set app(8) [$a(8) attach-app FTP]
$ns at 0.216 "$app(8) start"
set s(9) [$ns node]
set d(9) [$ns node]
$ns duplex-link $s(9) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(9) 32212350 0.022710000 DropTail
$ns queue-limit $s(9) $r(0) 100000
$ns queue-limit $r(0) $s(9) 100000
$ns queue-limit $r(1) $d(9) 100000
$ns queue-limit $d(9) $r(1) 100000
set a(9) [new Agent/TCP/Newreno]
set k(9) [new Agent/TCPSink]
$a(9) set window_ 183
$ns attach-agent $s(9) $a(9)
$ns attach-agent $d(9) $k(9)
$ns connect $a(9) $k(9)
set app(9) [$a(9) attach-app FTP]
$ns at 0.747 "$app(9) start"
set s(10) [$ns node]
set d(10) [$ns node]
$ns duplex-link $s(10) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(10) 32212350 0.022710000 DropTail
$ns queue-limit $s(10) $r(0) 100000
$ns queue-limit $r(0) $s(10) 100000
$ns queue-limit $r(1) $d(10) 100000
$ns queue-limit $d(10) $r(1) 100000
set a(10) [new Agent/TCP/Newreno]
set k(10) [new Agent/TCPSink]
$a(10) set window_ 183
$ns attach-agent $s(10) $a(10)
$ns attach-agent $d(10) $k(10)
$ns connect $a(10) $k(10)
set app(10) [$a(10) attach-app FTP]
$ns at 0.8 "$app(10) start"
set s(11) [$ns node]
set d(11) [$ns node]
$ns duplex-link $s(11) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(11) 32212350 0.022710000 DropTail
$ns queue-limit $s(11) $r(0) 100000
$ns queue-limit $r(0) $s(11) 100000
$ns queue-limit $r(1) $d(11) 100000
$ns queue-limit $d(11) $r(1) 100000
set a(11) [new Agent/TCP/Newreno]
set k(11) [new Agent/TCPSink]
$a(11) set window_ 183
$ns attach-agent $s(11) $a(11)
$ns attach-agent $d(11) $k(11)
$ns connect $a(11) $k(11)
set app(11) [$a(11) attach-app FTP]
$ns at 0.94 "$app(11) start"
set s(12) [$ns node]
set d(12) [$ns node]
$ns duplex-link $s(12) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(12) 32212350 0.022710000 DropTail
$ns queue-limit $s(12) $r(0) 100000
$ns queue-limit $r(0) $s(12) 100000
$ns queue-limit $r(1) $d(12) 100000
$ns queue-limit $d(12) $r(1) 100000
set a(12) [new Agent/TCP/Newreno]
set k(12) [new Agent/TCPSink]
$a(12) set window_ 183
$ns attach-agent $s(12) $a(12)
$ns attach-agent $d(12) $k(12)
$ns connect $a(12) $k(12)
set app(12) [$a(12) attach-app FTP]
$ns at 0.171 "$app(12) start"
set s(13) [$ns node]
set d(13) [$ns node]
$ns duplex-link $s(13) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(13) 32212350 0.022710000 DropTail
$ns queue-limit $s(13) $r(0) 100000
$ns queue-limit $r(0) $s(13) 100000
$ns queue-limit $r(1) $d(13) 100000
$ns queue-limit $d(13) $r(1) 100000
set a(13) [new Agent/TCP/Newreno]
set k(13) [new Agent/TCPSink]
$a(13) set window_ 183
$ns attach-agent $s(13) $a(13)
$ns attach-agent $d(13) $k(13)
$ns connect $a(13) $k(13)
set app(13) [$a(13) attach-app FTP]
$ns at 0.629 "$app(13) start"
set s(14) [$ns node]
set d(14) [$ns node]
$ns duplex-link $s(14) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(14) 32212350 0.022710000 DropTail
$ns queue-limit $s(14) $r(0) 100000
$ns queue-limit $r(0) $s(14) 100000
$ns queue-limit $r(1) $d(14) 100000
$ns queue-limit $d(14) $r(1) 100000
set a(14) [new Agent/TCP/Newreno]
set k(14) [new Agent/TCPSink]
$a(14) set window_ 183
$ns attach-agent $s(14) $a(14)
$ns attach-agent $d(14) $k(14)
$ns connect $a(14) $k(14)
set app(14) [$a(14) attach-app FTP]
$ns at 0.12 "$app(14) start"
set s(15) [$ns node]
set d(15) [$ns node]
$ns duplex-link $s(15) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(15) 32212350 0.022710000 DropTail
$ns queue-limit $s(15) $r(0) 100000
$ns queue-limit $r(0) $s(15) 100000
$ns queue-limit $r(1) $d(15) 100000
$ns queue-limit $d(15) $r(1) 100000
set a(15) [new Agent/TCP/Newreno]
set k(15) [new Agent/TCPSink]
$a(15) set window_ 183
$ns attach-agent $s(15) $a(15)
$ns attach-agent $d(15) $k(15)
$ns connect $a(15) $k(15)
set app(15) [$a(15) attach-app FTP]
$ns at 0.29 "$app(15) start"
set s(16) [$ns node]
set d(16) [$ns node]
$ns duplex-link $s(16) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(16) 32212350 0.022710000 DropTail
$ns queue-limit $s(16) $r(0) 100000
$ns queue-limit $r(0) $s(16) 100000
$ns queue-limit $r(1) $d(16) 100000
$ns queue-limit $d(16) $r(1) 100000
set a(16) [new Agent/TCP/Newreno]
set k(16) [new Agent/TCPSink]
$a(16) set window_ 183
$ns attach-agent $s(16) $a(16)
$ns attach-agent $d(16) $k(16)
$ns connect $a(16) $k(16)
set app(16) [$a(16) attach-app FTP]
$ns at 0.203 "$app(16) start"
set s(17) [$ns node]
set d(17) [$ns node]
$ns duplex-link $s(17) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(17) 32212350 0.022710000 DropTail
$ns queue-limit $s(17) $r(0) 100000
$ns queue-limit $r(0) $s(17) 100000
$ns queue-limit $r(1) $d(17) 100000
$ns queue-limit $d(17) $r(1) 100000
set a(17) [new Agent/TCP/Newreno]
set k(17) [new Agent/TCPSink]
$a(17) set window_ 183
$ns attach-agent $s(17) $a(17)
$ns attach-agent $d(17) $k(17)
$ns connect $a(17) $k(17)
set app(17) [$a(17) attach-app FTP]
$ns at 0.139 "$app(17) start"
set s(18) [$ns node]
set d(18) [$ns node]
$ns duplex-link $s(18) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(18) 32212350 0.022710000 DropTail
$ns queue-limit $s(18) $r(0) 100000
$ns queue-limit $r(0) $s(18) 100000
$ns queue-limit $r(1) $d(18) 100000
$ns queue-limit $d(18) $r(1) 100000
set a(18) [new Agent/TCP/Newreno]
set k(18) [new Agent/TCPSink]
$a(18) set window_ 183
$ns attach-agent $s(18) $a(18)
$ns attach-agent $d(18) $k(18)
$ns connect $a(18) $k(18)
set app(18) [$a(18) attach-app FTP]
$ns at 0.508 "$app(18) start"
set s(19) [$ns node]
set d(19) [$ns node]
$ns duplex-link $s(19) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(19) 32212350 0.022710000 DropTail
$ns queue-limit $s(19) $r(0) 100000
$ns queue-limit $r(0) $s(19) 100000
$ns queue-limit $r(1) $d(19) 100000
$ns queue-limit $d(19) $r(1) 100000
set a(19) [new Agent/TCP/Newreno]
set k(19) [new Agent/TCPSink]
$a(19) set window_ 183
$ns attach-agent $s(19) $a(19)
$ns attach-agent $d(19) $k(19)
$ns connect $a(19) $k(19)
set app(19) [$a(19) attach-app FTP]
$ns at 0.662 "$app(19) start"
set s(20) [$ns node]
set d(20) [$ns node]
$ns duplex-link $s(20) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(20) 32212350 0.022710000 DropTail
$ns queue-limit $s(20) $r(0) 100000
$ns queue-limit $r(0) $s(20) 100000
$ns queue-limit $r(1) $d(20) 100000
$ns queue-limit $d(20) $r(1) 100000
set a(20) [new Agent/TCP/Newreno]
set k(20) [new Agent/TCPSink]
$a(20) set window_ 183
$ns attach-agent $s(20) $a(20)
$ns attach-agent $d(20) $k(20)
$ns connect $a(20) $k(20)
set app(20) [$a(20) attach-app FTP]
$ns at 0.723 "$app(20) start"
set s(21) [$ns node]
set d(21) [$ns node]
$ns duplex-link $s(21) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(21) 32212350 0.022710000 DropTail
$ns queue-limit $s(21) $r(0) 100000
$ns queue-limit $r(0) $s(21) 100000
$ns queue-limit $r(1) $d(21) 100000
$ns queue-limit $d(21) $r(1) 100000
set a(21) [new Agent/TCP/Newreno]
set k(21) [new Agent/TCPSink]
$a(21) set window_ 183
$ns attach-agent $s(21) $a(21)
$ns attach-agent $d(21) $k(21)
$ns connect $a(21) $k(21)
set app(21) [$a(21) attach-app FTP]
$ns at 0.753 "$app(21) start"
set s(22) [$ns node]
set d(22) [$ns node]
$ns duplex-link $s(22) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(22) 32212350 0.022710000 DropTail
$ns queue-limit $s(22) $r(0) 100000
$ns queue-limit $r(0) $s(22) 100000
$ns queue-limit $r(1) $d(22) 100000
$ns queue-limit $d(22) $r(1) 100000
set a(22) [new Agent/TCP/Newreno]
set k(22) [new Agent/TCPSink]
$a(22) set window_ 183
$ns attach-agent $s(22) $a(22)
$ns attach-agent $d(22) $k(22)
$ns connect $a(22) $k(22)
set app(22) [$a(22) attach-app FTP]
$ns at 0.849 "$app(22) start"
set s(23) [$ns node]
set d(23) [$ns node]
$ns duplex-link $s(23) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(23) 32212350 0.022710000 DropTail
$ns queue-limit $s(23) $r(0) 100000
$ns queue-limit $r(0) $s(23) 100000
$ns queue-limit $r(1) $d(23) 100000
$ns queue-limit $d(23) $r(1) 100000
set a(23) [new Agent/TCP/Newreno]
set k(23) [new Agent/TCPSink]
$a(23) set window_ 183
$ns attach-agent $s(23) $a(23)
$ns attach-agent $d(23) $k(23)
$ns connect $a(23) $k(23)
set app(23) [$a(23) attach-app FTP]
$ns at 0.769 "$app(23) start"
set s(24) [$ns node]
set d(24) [$ns node]
$ns duplex-link $s(24) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(24) 32212350 0.022710000 DropTail
$ns queue-limit $s(24) $r(0) 100000
$ns queue-limit $r(0) $s(24) 100000
$ns queue-limit $r(1) $d(24) 100000
$ns queue-limit $d(24) $r(1) 100000
set a(24) [new Agent/TCP/Newreno]
set k(24) [new Agent/TCPSink]
$a(24) set window_ 183
$ns attach-agent $s(24) $a(24)
$ns attach-agent $d(24) $k(24)
$ns connect $a(24) $k(24)
set app(24) [$a(24) attach-app FTP]
$ns at 0.184 "$app(24) start"
set s(25) [$ns node]
set d(25) [$ns node]
$ns duplex-link $s(25) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(25) 32212350 0.022710000 DropTail
$ns queue-limit $s(25) $r(0) 100000
$ns queue-limit $r(0) $s(25) 100000
$ns queue-limit $r(1) $d(25) 100000
$ns queue-limit $d(25) $r(1) 100000
set a(25) [new Agent/TCP/Newreno]
set k(25) [new Agent/TCPSink]
$a(25) set window_ 183
$ns attach-agent $s(25) $a(25)
$ns attach-agent $d(25) $k(25)
$ns connect $a(25) $k(25)
set app(25) [$a(25) attach-app FTP]
$ns at 0.86 "$app(25) start"
set s(26) [$ns node]
set d(26) [$ns node]
$ns duplex-link $s(26) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(26) 32212350 0.022710000 DropTail
$ns queue-limit $s(26) $r(0) 100000
$ns queue-limit $r(0) $s(26) 100000
$ns queue-limit $r(1) $d(26) 100000
$ns queue-limit $d(26) $r(1) 100000
set a(26) [new Agent/TCP/Newreno]
set k(26) [new Agent/TCPSink]
$a(26) set window_ 183
$ns attach-agent $s(26) $a(26)
$ns attach-agent $d(26) $k(26)
$ns connect $a(26) $k(26)
set app(26) [$a(26) attach-app FTP]
$ns at 0.458 "$app(26) start"
set s(27) [$ns node]
set d(27) [$ns node]
$ns duplex-link $s(27) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(27) 32212350 0.022710000 DropTail
$ns queue-limit $s(27) $r(0) 100000
$ns queue-limit $r(0) $s(27) 100000
$ns queue-limit $r(1) $d(27) 100000
$ns queue-limit $d(27) $r(1) 100000
set a(27) [new Agent/TCP/Newreno]
set k(27) [new Agent/TCPSink]
$a(27) set window_ 183
$ns attach-agent $s(27) $a(27)
$ns attach-agent $d(27) $k(27)
$ns connect $a(27) $k(27)
set app(27) [$a(27) attach-app FTP]
$ns at 0.162 "$app(27) start"
set s(28) [$ns node]
set d(28) [$ns node]
$ns duplex-link $s(28) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(28) 32212350 0.022710000 DropTail
$ns queue-limit $s(28) $r(0) 100000
$ns queue-limit $r(0) $s(28) 100000
$ns queue-limit $r(1) $d(28) 100000
$ns queue-limit $d(28) $r(1) 100000
set a(28) [new Agent/TCP/Newreno]
set k(28) [new Agent/TCPSink]
$a(28) set window_ 183
$ns attach-agent $s(28) $a(28)
$ns attach-agent $d(28) $k(28)
$ns connect $a(28) $k(28)
set app(28) [$a(28) attach-app FTP]
$ns at 0.918 "$app(28) start"
set s(29) [$ns node]
set d(29) [$ns node]
$ns duplex-link $s(29) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(29) 32212350 0.022710000 DropTail
$ns queue-limit $s(29) $r(0) 100000
$ns queue-limit $r(0) $s(29) 100000
$ns queue-limit $r(1) $d(29) 100000
$ns queue-limit $d(29) $r(1) 100000
set a(29) [new Agent/TCP/Newreno]
set k(29) [new Agent/TCPSink]
$a(29) set window_ 183
$ns attach-agent $s(29) $a(29)
$ns attach-agent $d(29) $k(29)
$ns connect $a(29) $k(29)
set app(29) [$a(29) attach-app FTP]
$ns at 0.095 "$app(29) start"
set s(30) [$ns node]
set d(30) [$ns node]
$ns duplex-link $s(30) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(30) 32212350 0.022710000 DropTail
$ns queue-limit $s(30) $r(0) 100000
$ns queue-limit $r(0) $s(30) 100000
$ns queue-limit $r(1) $d(30) 100000
$ns queue-limit $d(30) $r(1) 100000
set a(30) [new Agent/TCP/Newreno]
set k(30) [new Agent/TCPSink]
$a(30) set window_ 183
$ns attach-agent $s(30) $a(30)
$ns attach-agent $d(30) $k(30)
$ns connect $a(30) $k(30)
set app(30) [$a(30) attach-app FTP]
$ns at 0.727 "$app(30) start"
set s(31) [$ns node]
set d(31) [$ns node]
$ns duplex-link $s(31) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(31) 32212350 0.022710000 DropTail
$ns queue-limit $s(31) $r(0) 100000
$ns queue-limit $r(0) $s(31) 100000
$ns queue-limit $r(1) $d(31) 100000
$ns queue-limit $d(31) $r(1) 100000
set a(31) [new Agent/TCP/Newreno]
set k(31) [new Agent/TCPSink]
$a(31) set window_ 183
$ns attach-agent $s(31) $a(31)
$ns attach-agent $d(31) $k(31)
$ns connect $a(31) $k(31)
set app(31) [$a(31) attach-app FTP]
$ns at 0.761 "$app(31) start"
set s(32) [$ns node]
set d(32) [$ns node]
$ns duplex-link $s(32) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(32) 32212350 0.022710000 DropTail
$ns queue-limit $s(32) $r(0) 100000
$ns queue-limit $r(0) $s(32) 100000
$ns queue-limit $r(1) $d(32) 100000
$ns queue-limit $d(32) $r(1) 100000
set a(32) [new Agent/TCP/Newreno]
set k(32) [new Agent/TCPSink]
$a(32) set window_ 183
$ns attach-agent $s(32) $a(32)
$ns attach-agent $d(32) $k(32)
$ns connect $a(32) $k(32)
set app(32) [$a(32) attach-app FTP]
$ns at 0.707 "$app(32) start"
set s(33) [$ns node]
set d(33) [$ns node]
$ns duplex-link $s(33) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(33) 32212350 0.022710000 DropTail
$ns queue-limit $s(33) $r(0) 100000
$ns queue-limit $r(0) $s(33) 100000
$ns queue-limit $r(1) $d(33) 100000
$ns queue-limit $d(33) $r(1) 100000
set a(33) [new Agent/TCP/Newreno]
set k(33) [new Agent/TCPSink]
$a(33) set window_ 183
$ns attach-agent $s(33) $a(33)
$ns attach-agent $d(33) $k(33)
$ns connect $a(33) $k(33)
set app(33) [$a(33) attach-app FTP]
$ns at 0.749 "$app(33) start"
set s(34) [$ns node]
set d(34) [$ns node]
$ns duplex-link $s(34) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(34) 32212350 0.022710000 DropTail
$ns queue-limit $s(34) $r(0) 100000
$ns queue-limit $r(0) $s(34) 100000
$ns queue-limit $r(1) $d(34) 100000
$ns queue-limit $d(34) $r(1) 100000
set a(34) [new Agent/TCP/Newreno]
set k(34) [new Agent/TCPSink]
$a(34) set window_ 183
$ns attach-agent $s(34) $a(34)
$ns attach-agent $d(34) $k(34)
$ns connect $a(34) $k(34)
set app(34) [$a(34) attach-app FTP]
$ns at 0.691 "$app(34) start"
set s(35) [$ns node]
set d(35) [$ns node]
$ns duplex-link $s(35) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(35) 32212350 0.022710000 DropTail
$ns queue-limit $s(35) $r(0) 100000
$ns queue-limit $r(0) $s(35) 100000
$ns queue-limit $r(1) $d(35) 100000
$ns queue-limit $d(35) $r(1) 100000
set a(35) [new Agent/TCP/Newreno]
set k(35) [new Agent/TCPSink]
$a(35) set window_ 183
$ns attach-agent $s(35) $a(35)
$ns attach-agent $d(35) $k(35)
$ns connect $a(35) $k(35)
set app(35) [$a(35) attach-app FTP]
$ns at 0.064 "$app(35) start"
set s(36) [$ns node]
set d(36) [$ns node]
$ns duplex-link $s(36) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(36) 32212350 0.022710000 DropTail
$ns queue-limit $s(36) $r(0) 100000
$ns queue-limit $r(0) $s(36) 100000
$ns queue-limit $r(1) $d(36) 100000
$ns queue-limit $d(36) $r(1) 100000
set a(36) [new Agent/TCP/Newreno]
set k(36) [new Agent/TCPSink]
$a(36) set window_ 183
$ns attach-agent $s(36) $a(36)
$ns attach-agent $d(36) $k(36)
$ns connect $a(36) $k(36)
set app(36) [$a(36) attach-app FTP]
$ns at 0.67 "$app(36) start"
set s(37) [$ns node]
set d(37) [$ns node]
$ns duplex-link $s(37) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(37) 32212350 0.022710000 DropTail
$ns queue-limit $s(37) $r(0) 100000
$ns queue-limit $r(0) $s(37) 100000
$ns queue-limit $r(1) $d(37) 100000
$ns queue-limit $d(37) $r(1) 100000
set a(37) [new Agent/TCP/Newreno]
set k(37) [new Agent/TCPSink]
$a(37) set window_ 183
$ns attach-agent $s(37) $a(37)
$ns attach-agent $d(37) $k(37)
$ns connect $a(37) $k(37)
set app(37) [$a(37) attach-app FTP]
$ns at 0.994 "$app(37) start"
set s(38) [$ns node]
set d(38) [$ns node]
$ns duplex-link $s(38) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(38) 32212350 0.022710000 DropTail
$ns queue-limit $s(38) $r(0) 100000
$ns queue-limit $r(0) $s(38) 100000
$ns queue-limit $r(1) $d(38) 100000
$ns queue-limit $d(38) $r(1) 100000
set a(38) [new Agent/TCP/Newreno]
set k(38) [new Agent/TCPSink]
$a(38) set window_ 183
$ns attach-agent $s(38) $a(38)
$ns attach-agent $d(38) $k(38)
$ns connect $a(38) $k(38)
set app(38) [$a(38) attach-app FTP]
$ns at 0.74 "$app(38) start"
set s(39) [$ns node]
set d(39) [$ns node]
$ns duplex-link $s(39) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(39) 32212350 0.022710000 DropTail
$ns queue-limit $s(39) $r(0) 100000
$ns queue-limit $r(0) $s(39) 100000
$ns queue-limit $r(1) $d(39) 100000
$ns queue-limit $d(39) $r(1) 100000
set a(39) [new Agent/TCP/Newreno]
set k(39) [new Agent/TCPSink]
$a(39) set window_ 183
$ns attach-agent $s(39) $a(39)
$ns attach-agent $d(39) $k(39)
$ns connect $a(39) $k(39)
set app(39) [$a(39) attach-app FTP]
$ns at 0.117 "$app(39) start"
set s(40) [$ns node]
set d(40) [$ns node]
$ns duplex-link $s(40) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(40) 32212350 0.022710000 DropTail
$ns queue-limit $s(40) $r(0) 100000
$ns queue-limit $r(0) $s(40) 100000
$ns queue-limit $r(1) $d(40) 100000
$ns queue-limit $d(40) $r(1) 100000
set a(40) [new Agent/TCP/Newreno]
set k(40) [new Agent/TCPSink]
$a(40) set window_ 183
$ns attach-agent $s(40) $a(40)
$ns attach-agent $d(40) $k(40)
$ns connect $a(40) $k(40)
set app(40) [$a(40) attach-app FTP]
$ns at 0.872 "$app(40) start"
set s(41) [$ns node]
set d(41) [$ns node]
$ns duplex-link $s(41) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(41) 32212350 0.022710000 DropTail
$ns queue-limit $s(41) $r(0) 100000
$ns queue-limit $r(0) $s(41) 100000
$ns queue-limit $r(1) $d(41) 100000
$ns queue-limit $d(41) $r(1) 100000
set a(41) [new Agent/TCP/Newreno]
set k(41) [new Agent/TCPSink]
$a(41) set window_ 183
$ns attach-agent $s(41) $a(41)
$ns attach-agent $d(41) $k(41)
$ns connect $a(41) $k(41)
set app(41) [$a(41) attach-app FTP]
$ns at 0.345 "$app(41) start"
set s(42) [$ns node]
set d(42) [$ns node]
$ns duplex-link $s(42) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(42) 32212350 0.022710000 DropTail
$ns queue-limit $s(42) $r(0) 100000
$ns queue-limit $r(0) $s(42) 100000
$ns queue-limit $r(1) $d(42) 100000
$ns queue-limit $d(42) $r(1) 100000
set a(42) [new Agent/TCP/Newreno]
set k(42) [new Agent/TCPSink]
$a(42) set window_ 183
$ns attach-agent $s(42) $a(42)
$ns attach-agent $d(42) $k(42)
$ns connect $a(42) $k(42)
set app(42) [$a(42) attach-app FTP]
$ns at 0.812 "$app(42) start"
set s(43) [$ns node]
set d(43) [$ns node]
$ns duplex-link $s(43) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(43) 32212350 0.022710000 DropTail
$ns queue-limit $s(43) $r(0) 100000
$ns queue-limit $r(0) $s(43) 100000
$ns queue-limit $r(1) $d(43) 100000
$ns queue-limit $d(43) $r(1) 100000
set a(43) [new Agent/TCP/Newreno]
set k(43) [new Agent/TCPSink]
$a(43) set window_ 183
$ns attach-agent $s(43) $a(43)
$ns attach-agent $d(43) $k(43)
$ns connect $a(43) $k(43)
set app(43) [$a(43) attach-app FTP]
$ns at 0.771 "$app(43) start"
set s(44) [$ns node]
set d(44) [$ns node]
$ns duplex-link $s(44) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(44) 32212350 0.022710000 DropTail
$ns queue-limit $s(44) $r(0) 100000
$ns queue-limit $r(0) $s(44) 100000
$ns queue-limit $r(1) $d(44) 100000
$ns queue-limit $d(44) $r(1) 100000
set a(44) [new Agent/TCP/Newreno]
set k(44) [new Agent/TCPSink]
$a(44) set window_ 183
$ns attach-agent $s(44) $a(44)
$ns attach-agent $d(44) $k(44)
$ns connect $a(44) $k(44)
set app(44) [$a(44) attach-app FTP]
$ns at 0.231 "$app(44) start"
set s(45) [$ns node]
set d(45) [$ns node]
$ns duplex-link $s(45) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(45) 32212350 0.022710000 DropTail
$ns queue-limit $s(45) $r(0) 100000
$ns queue-limit $r(0) $s(45) 100000
$ns queue-limit $r(1) $d(45) 100000
$ns queue-limit $d(45) $r(1) 100000
set a(45) [new Agent/TCP/Newreno]
set k(45) [new Agent/TCPSink]
$a(45) set window_ 183
$ns attach-agent $s(45) $a(45)
$ns attach-agent $d(45) $k(45)
$ns connect $a(45) $k(45)
set app(45) [$a(45) attach-app FTP]
$ns at 0.33 "$app(45) start"
set s(46) [$ns node]
set d(46) [$ns node]
$ns duplex-link $s(46) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(46) 32212350 0.022710000 DropTail
$ns queue-limit $s(46) $r(0) 100000
$ns queue-limit $r(0) $s(46) 100000
$ns queue-limit $r(1) $d(46) 100000
$ns queue-limit $d(46) $r(1) 100000
set a(46) [new Agent/TCP/Newreno]
set k(46) [new Agent/TCPSink]
$a(46) set window_ 183
$ns attach-agent $s(46) $a(46)
$ns attach-agent $d(46) $k(46)
$ns connect $a(46) $k(46)
set app(46) [$a(46) attach-app FTP]
$ns at 0.392 "$app(46) start"
set s(47) [$ns node]
set d(47) [$ns node]
$ns duplex-link $s(47) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(47) 32212350 0.022710000 DropTail
$ns queue-limit $s(47) $r(0) 100000
$ns queue-limit $r(0) $s(47) 100000
$ns queue-limit $r(1) $d(47) 100000
$ns queue-limit $d(47) $r(1) 100000
set a(47) [new Agent/TCP/Newreno]
set k(47) [new Agent/TCPSink]
$a(47) set window_ 183
$ns attach-agent $s(47) $a(47)
$ns attach-agent $d(47) $k(47)
$ns connect $a(47) $k(47)
set app(47) [$a(47) attach-app FTP]
$ns at 0.727 "$app(47) start"
set s(48) [$ns node]
set d(48) [$ns node]
$ns duplex-link $s(48) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(48) 32212350 0.022710000 DropTail
$ns queue-limit $s(48) $r(0) 100000
$ns queue-limit $r(0) $s(48) 100000
$ns queue-limit $r(1) $d(48) 100000
$ns queue-limit $d(48) $r(1) 100000
set a(48) [new Agent/TCP/Newreno]
set k(48) [new Agent/TCPSink]
$a(48) set window_ 183
$ns attach-agent $s(48) $a(48)
$ns attach-agent $d(48) $k(48)
$ns connect $a(48) $k(48)
set app(48) [$a(48) attach-app FTP]
$ns at 0.159 "$app(48) start"
set s(49) [$ns node]
set d(49) [$ns node]
$ns duplex-link $s(49) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(49) 32212350 0.022710000 DropTail
$ns queue-limit $s(49) $r(0) 100000
$ns queue-limit $r(0) $s(49) 100000
$ns queue-limit $r(1) $d(49) 100000
$ns queue-limit $d(49) $r(1) 100000
set a(49) [new Agent/TCP/Newreno]
set k(49) [new Agent/TCPSink]
$a(49) set window_ 183
$ns attach-agent $s(49) $a(49)
$ns attach-agent $d(49) $k(49)
$ns connect $a(49) $k(49)
set app(49) [$a(49) attach-app FTP]
$ns at 0.984 "$app(49) start"
set s(50) [$ns node]
set d(50) [$ns node]
$ns duplex-link $s(50) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(50) 32212350 0.022710000 DropTail
$ns queue-limit $s(50) $r(0) 100000
$ns queue-limit $r(0) $s(50) 100000
$ns queue-limit $r(1) $d(50) 100000
$ns queue-limit $d(50) $r(1) 100000
set a(50) [new Agent/TCP/Newreno]
set k(50) [new Agent/TCPSink]
$a(50) set window_ 183
$ns attach-agent $s(50) $a(50)
$ns attach-agent $d(50) $k(50)
$ns connect $a(50) $k(50)
set app(50) [$a(50) attach-app FTP]
$ns at 0.404 "$app(50) start"
set s(51) [$ns node]
set d(51) [$ns node]
$ns duplex-link $s(51) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(51) 32212350 0.022710000 DropTail
$ns queue-limit $s(51) $r(0) 100000
$ns queue-limit $r(0) $s(51) 100000
$ns queue-limit $r(1) $d(51) 100000
$ns queue-limit $d(51) $r(1) 100000
set a(51) [new Agent/TCP/Newreno]
set k(51) [new Agent/TCPSink]
$a(51) set window_ 183
$ns attach-agent $s(51) $a(51)
$ns attach-agent $d(51) $k(51)
$ns connect $a(51) $k(51)
set app(51) [$a(51) attach-app FTP]
$ns at 0.701 "$app(51) start"
set s(52) [$ns node]
set d(52) [$ns node]
$ns duplex-link $s(52) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(52) 32212350 0.022710000 DropTail
$ns queue-limit $s(52) $r(0) 100000
$ns queue-limit $r(0) $s(52) 100000
$ns queue-limit $r(1) $d(52) 100000
$ns queue-limit $d(52) $r(1) 100000
set a(52) [new Agent/TCP/Newreno]
set k(52) [new Agent/TCPSink]
$a(52) set window_ 183
$ns attach-agent $s(52) $a(52)
$ns attach-agent $d(52) $k(52)
$ns connect $a(52) $k(52)
set app(52) [$a(52) attach-app FTP]
$ns at 0.162 "$app(52) start"
set s(53) [$ns node]
set d(53) [$ns node]
$ns duplex-link $s(53) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(53) 32212350 0.022710000 DropTail
$ns queue-limit $s(53) $r(0) 100000
$ns queue-limit $r(0) $s(53) 100000
$ns queue-limit $r(1) $d(53) 100000
$ns queue-limit $d(53) $r(1) 100000
set a(53) [new Agent/TCP/Newreno]
set k(53) [new Agent/TCPSink]
$a(53) set window_ 183
$ns attach-agent $s(53) $a(53)
$ns attach-agent $d(53) $k(53)
$ns connect $a(53) $k(53)
set app(53) [$a(53) attach-app FTP]
$ns at 0.89 "$app(53) start"
set s(54) [$ns node]
set d(54) [$ns node]
$ns duplex-link $s(54) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(54) 32212350 0.022710000 DropTail
$ns queue-limit $s(54) $r(0) 100000
$ns queue-limit $r(0) $s(54) 100000
$ns queue-limit $r(1) $d(54) 100000
$ns queue-limit $d(54) $r(1) 100000
set a(54) [new Agent/TCP/Newreno]
set k(54) [new Agent/TCPSink]
$a(54) set window_ 183
$ns attach-agent $s(54) $a(54)
$ns attach-agent $d(54) $k(54)
$ns connect $a(54) $k(54)
set app(54) [$a(54) attach-app FTP]
$ns at 0.246 "$app(54) start"
set s(55) [$ns node]
set d(55) [$ns node]
$ns duplex-link $s(55) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(55) 32212350 0.022710000 DropTail
$ns queue-limit $s(55) $r(0) 100000
$ns queue-limit $r(0) $s(55) 100000
$ns queue-limit $r(1) $d(55) 100000
$ns queue-limit $d(55) $r(1) 100000
set a(55) [new Agent/TCP/Newreno]
set k(55) [new Agent/TCPSink]
$a(55) set window_ 183
$ns attach-agent $s(55) $a(55)
$ns attach-agent $d(55) $k(55)
$ns connect $a(55) $k(55)
set app(55) [$a(55) attach-app FTP]
$ns at 0.625 "$app(55) start"
set s(56) [$ns node]
set d(56) [$ns node]
$ns duplex-link $s(56) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(56) 32212350 0.022710000 DropTail
$ns queue-limit $s(56) $r(0) 100000
$ns queue-limit $r(0) $s(56) 100000
$ns queue-limit $r(1) $d(56) 100000
$ns queue-limit $d(56) $r(1) 100000
set a(56) [new Agent/TCP/Newreno]
set k(56) [new Agent/TCPSink]
$a(56) set window_ 183
$ns attach-agent $s(56) $a(56)
$ns attach-agent $d(56) $k(56)
$ns connect $a(56) $k(56)
set app(56) [$a(56) attach-app FTP]
$ns at 0.074 "$app(56) start"
set s(57) [$ns node]
set d(57) [$ns node]
$ns duplex-link $s(57) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(57) 32212350 0.022710000 DropTail
$ns queue-limit $s(57) $r(0) 100000
$ns queue-limit $r(0) $s(57) 100000
$ns queue-limit $r(1) $d(57) 100000
$ns queue-limit $d(57) $r(1) 100000
set a(57) [new Agent/TCP/Newreno]
set k(57) [new Agent/TCPSink]
$a(57) set window_ 183
$ns attach-agent $s(57) $a(57)
$ns attach-agent $d(57) $k(57)
$ns connect $a(57) $k(57)
set app(57) [$a(57) attach-app FTP]
$ns at 0.183 "$app(57) start"
set s(58) [$ns node]
set d(58) [$ns node]
$ns duplex-link $s(58) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(58) 32212350 0.022710000 DropTail
$ns queue-limit $s(58) $r(0) 100000
$ns queue-limit $r(0) $s(58) 100000
$ns queue-limit $r(1) $d(58) 100000
$ns queue-limit $d(58) $r(1) 100000
set a(58) [new Agent/TCP/Newreno]
set k(58) [new Agent/TCPSink]
$a(58) set window_ 183
$ns attach-agent $s(58) $a(58)
$ns attach-agent $d(58) $k(58)
$ns connect $a(58) $k(58)
set app(58) [$a(58) attach-app FTP]
$ns at 0.853 "$app(58) start"
set s(59) [$ns node]
set d(59) [$ns node]
$ns duplex-link $s(59) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(59) 32212350 0.022710000 DropTail
$ns queue-limit $s(59) $r(0) 100000
$ns queue-limit $r(0) $s(59) 100000
$ns queue-limit $r(1) $d(59) 100000
$ns queue-limit $d(59) $r(1) 100000
set a(59) [new Agent/TCP/Newreno]
set k(59) [new Agent/TCPSink]
$a(59) set window_ 183
$ns attach-agent $s(59) $a(59)
$ns attach-agent $d(59) $k(59)
$ns connect $a(59) $k(59)
set app(59) [$a(59) attach-app FTP]
$ns at 0.412 "$app(59) start"
set s(60) [$ns node]
set d(60) [$ns node]
$ns duplex-link $s(60) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(60) 32212350 0.022710000 DropTail
$ns queue-limit $s(60) $r(0) 100000
$ns queue-limit $r(0) $s(60) 100000
$ns queue-limit $r(1) $d(60) 100000
$ns queue-limit $d(60) $r(1) 100000
set a(60) [new Agent/TCP/Newreno]
set k(60) [new Agent/TCPSink]
$a(60) set window_ 183
$ns attach-agent $s(60) $a(60)
$ns attach-agent $d(60) $k(60)
$ns connect $a(60) $k(60)
set app(60) [$a(60) attach-app FTP]
$ns at 0.176 "$app(60) start"
set s(61) [$ns node]
set d(61) [$ns node]
$ns duplex-link $s(61) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(61) 32212350 0.022710000 DropTail
$ns queue-limit $s(61) $r(0) 100000
$ns queue-limit $r(0) $s(61) 100000
$ns queue-limit $r(1) $d(61) 100000
$ns queue-limit $d(61) $r(1) 100000
set a(61) [new Agent/TCP/Newreno]
set k(61) [new Agent/TCPSink]
$a(61) set window_ 183
$ns attach-agent $s(61) $a(61)
$ns attach-agent $d(61) $k(61)
$ns connect $a(61) $k(61)
set app(61) [$a(61) attach-app FTP]
$ns at 0.382 "$app(61) start"
set s(62) [$ns node]
set d(62) [$ns node]
$ns duplex-link $s(62) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(62) 32212350 0.022710000 DropTail
$ns queue-limit $s(62) $r(0) 100000
$ns queue-limit $r(0) $s(62) 100000
$ns queue-limit $r(1) $d(62) 100000
$ns queue-limit $d(62) $r(1) 100000
set a(62) [new Agent/TCP/Newreno]
set k(62) [new Agent/TCPSink]
$a(62) set window_ 183
$ns attach-agent $s(62) $a(62)
$ns attach-agent $d(62) $k(62)
$ns connect $a(62) $k(62)
set app(62) [$a(62) attach-app FTP]
$ns at 0.159 "$app(62) start"
set s(63) [$ns node]
set d(63) [$ns node]
$ns duplex-link $s(63) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(63) 32212350 0.022710000 DropTail
$ns queue-limit $s(63) $r(0) 100000
$ns queue-limit $r(0) $s(63) 100000
$ns queue-limit $r(1) $d(63) 100000
$ns queue-limit $d(63) $r(1) 100000
set a(63) [new Agent/TCP/Newreno]
set k(63) [new Agent/TCPSink]
$a(63) set window_ 183
$ns attach-agent $s(63) $a(63)
$ns attach-agent $d(63) $k(63)
$ns connect $a(63) $k(63)
set app(63) [$a(63) attach-app FTP]
$ns at 0.448 "$app(63) start"
set s(64) [$ns node]
set d(64) [$ns node]
$ns duplex-link $s(64) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(64) 32212350 0.022710000 DropTail
$ns queue-limit $s(64) $r(0) 100000
$ns queue-limit $r(0) $s(64) 100000
$ns queue-limit $r(1) $d(64) 100000
$ns queue-limit $d(64) $r(1) 100000
set a(64) [new Agent/TCP/Newreno]
set k(64) [new Agent/TCPSink]
$a(64) set window_ 183
$ns attach-agent $s(64) $a(64)
$ns attach-agent $d(64) $k(64)
$ns connect $a(64) $k(64)
set app(64) [$a(64) attach-app FTP]
$ns at 0.997 "$app(64) start"
set s(65) [$ns node]
set d(65) [$ns node]
$ns duplex-link $s(65) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(65) 32212350 0.022710000 DropTail
$ns queue-limit $s(65) $r(0) 100000
$ns queue-limit $r(0) $s(65) 100000
$ns queue-limit $r(1) $d(65) 100000
$ns queue-limit $d(65) $r(1) 100000
set a(65) [new Agent/TCP/Newreno]
set k(65) [new Agent/TCPSink]
$a(65) set window_ 183
$ns attach-agent $s(65) $a(65)
$ns attach-agent $d(65) $k(65)
$ns connect $a(65) $k(65)
set app(65) [$a(65) attach-app FTP]
$ns at 0.69 "$app(65) start"
set s(66) [$ns node]
set d(66) [$ns node]
$ns duplex-link $s(66) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(66) 32212350 0.022710000 DropTail
$ns queue-limit $s(66) $r(0) 100000
$ns queue-limit $r(0) $s(66) 100000
$ns queue-limit $r(1) $d(66) 100000
$ns queue-limit $d(66) $r(1) 100000
set a(66) [new Agent/TCP/Newreno]
set k(66) [new Agent/TCPSink]
$a(66) set window_ 183
$ns attach-agent $s(66) $a(66)
$ns attach-agent $d(66) $k(66)
$ns connect $a(66) $k(66)
set app(66) [$a(66) attach-app FTP]
$ns at 0.48 "$app(66) start"
set s(67) [$ns node]
set d(67) [$ns node]
$ns duplex-link $s(67) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(67) 32212350 0.022710000 DropTail
$ns queue-limit $s(67) $r(0) 100000
$ns queue-limit $r(0) $s(67) 100000
$ns queue-limit $r(1) $d(67) 100000
$ns queue-limit $d(67) $r(1) 100000
set a(67) [new Agent/TCP/Newreno]
set k(67) [new Agent/TCPSink]
$a(67) set window_ 183
$ns attach-agent $s(67) $a(67)
$ns attach-agent $d(67) $k(67)
$ns connect $a(67) $k(67)
set app(67) [$a(67) attach-app FTP]
$ns at 0.759 "$app(67) start"
set s(68) [$ns node]
set d(68) [$ns node]
$ns duplex-link $s(68) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(68) 32212350 0.022710000 DropTail
$ns queue-limit $s(68) $r(0) 100000
$ns queue-limit $r(0) $s(68) 100000
$ns queue-limit $r(1) $d(68) 100000
$ns queue-limit $d(68) $r(1) 100000
set a(68) [new Agent/TCP/Newreno]
set k(68) [new Agent/TCPSink]
$a(68) set window_ 183
$ns attach-agent $s(68) $a(68)
$ns attach-agent $d(68) $k(68)
$ns connect $a(68) $k(68)
set app(68) [$a(68) attach-app FTP]
$ns at 0.246 "$app(68) start"
set s(69) [$ns node]
set d(69) [$ns node]
$ns duplex-link $s(69) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(69) 32212350 0.022710000 DropTail
$ns queue-limit $s(69) $r(0) 100000
$ns queue-limit $r(0) $s(69) 100000
$ns queue-limit $r(1) $d(69) 100000
$ns queue-limit $d(69) $r(1) 100000
set a(69) [new Agent/TCP/Newreno]
set k(69) [new Agent/TCPSink]
$a(69) set window_ 183
$ns attach-agent $s(69) $a(69)
$ns attach-agent $d(69) $k(69)
$ns connect $a(69) $k(69)
set app(69) [$a(69) attach-app FTP]
$ns at 0.441 "$app(69) start"
set s(70) [$ns node]
set d(70) [$ns node]
$ns duplex-link $s(70) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(70) 32212350 0.022710000 DropTail
$ns queue-limit $s(70) $r(0) 100000
$ns queue-limit $r(0) $s(70) 100000
$ns queue-limit $r(1) $d(70) 100000
$ns queue-limit $d(70) $r(1) 100000
set a(70) [new Agent/TCP/Newreno]
set k(70) [new Agent/TCPSink]
$a(70) set window_ 183
$ns attach-agent $s(70) $a(70)
$ns attach-agent $d(70) $k(70)
$ns connect $a(70) $k(70)
set app(70) [$a(70) attach-app FTP]
$ns at 0.532 "$app(70) start"
set s(71) [$ns node]
set d(71) [$ns node]
$ns duplex-link $s(71) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(71) 32212350 0.022710000 DropTail
$ns queue-limit $s(71) $r(0) 100000
$ns queue-limit $r(0) $s(71) 100000
$ns queue-limit $r(1) $d(71) 100000
$ns queue-limit $d(71) $r(1) 100000
set a(71) [new Agent/TCP/Newreno]
set k(71) [new Agent/TCPSink]
$a(71) set window_ 183
$ns attach-agent $s(71) $a(71)
$ns attach-agent $d(71) $k(71)
$ns connect $a(71) $k(71)
set app(71) [$a(71) attach-app FTP]
$ns at 0.983 "$app(71) start"
set s(72) [$ns node]
set d(72) [$ns node]
$ns duplex-link $s(72) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(72) 32212350 0.022710000 DropTail
$ns queue-limit $s(72) $r(0) 100000
$ns queue-limit $r(0) $s(72) 100000
$ns queue-limit $r(1) $d(72) 100000
$ns queue-limit $d(72) $r(1) 100000
set a(72) [new Agent/TCP/Newreno]
set k(72) [new Agent/TCPSink]
$a(72) set window_ 183
$ns attach-agent $s(72) $a(72)
$ns attach-agent $d(72) $k(72)
$ns connect $a(72) $k(72)
set app(72) [$a(72) attach-app FTP]
$ns at 0.186 "$app(72) start"
set s(73) [$ns node]
set d(73) [$ns node]
$ns duplex-link $s(73) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(73) 32212350 0.022710000 DropTail
$ns queue-limit $s(73) $r(0) 100000
$ns queue-limit $r(0) $s(73) 100000
$ns queue-limit $r(1) $d(73) 100000
$ns queue-limit $d(73) $r(1) 100000
set a(73) [new Agent/TCP/Newreno]
set k(73) [new Agent/TCPSink]
$a(73) set window_ 183
$ns attach-agent $s(73) $a(73)
$ns attach-agent $d(73) $k(73)
$ns connect $a(73) $k(73)
set app(73) [$a(73) attach-app FTP]
$ns at 0.4 "$app(73) start"
set s(74) [$ns node]
set d(74) [$ns node]
$ns duplex-link $s(74) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(74) 32212350 0.022710000 DropTail
$ns queue-limit $s(74) $r(0) 100000
$ns queue-limit $r(0) $s(74) 100000
$ns queue-limit $r(1) $d(74) 100000
$ns queue-limit $d(74) $r(1) 100000
set a(74) [new Agent/TCP/Newreno]
set k(74) [new Agent/TCPSink]
$a(74) set window_ 183
$ns attach-agent $s(74) $a(74)
$ns attach-agent $d(74) $k(74)
$ns connect $a(74) $k(74)
set app(74) [$a(74) attach-app FTP]
$ns at 0.637 "$app(74) start"
set s(75) [$ns node]
set d(75) [$ns node]
$ns duplex-link $s(75) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(75) 32212350 0.022710000 DropTail
$ns queue-limit $s(75) $r(0) 100000
$ns queue-limit $r(0) $s(75) 100000
$ns queue-limit $r(1) $d(75) 100000
$ns queue-limit $d(75) $r(1) 100000
set a(75) [new Agent/TCP/Newreno]
set k(75) [new Agent/TCPSink]
$a(75) set window_ 183
$ns attach-agent $s(75) $a(75)
$ns attach-agent $d(75) $k(75)
$ns connect $a(75) $k(75)
set app(75) [$a(75) attach-app FTP]
$ns at 0.899 "$app(75) start"
set s(76) [$ns node]
set d(76) [$ns node]
$ns duplex-link $s(76) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(76) 32212350 0.022710000 DropTail
$ns queue-limit $s(76) $r(0) 100000
$ns queue-limit $r(0) $s(76) 100000
$ns queue-limit $r(1) $d(76) 100000
$ns queue-limit $d(76) $r(1) 100000
set a(76) [new Agent/TCP/Newreno]
set k(76) [new Agent/TCPSink]
$a(76) set window_ 183
$ns attach-agent $s(76) $a(76)
$ns attach-agent $d(76) $k(76)
$ns connect $a(76) $k(76)
set app(76) [$a(76) attach-app FTP]
$ns at 0.458 "$app(76) start"
set s(77) [$ns node]
set d(77) [$ns node]
$ns duplex-link $s(77) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(77) 32212350 0.022710000 DropTail
$ns queue-limit $s(77) $r(0) 100000
$ns queue-limit $r(0) $s(77) 100000
$ns queue-limit $r(1) $d(77) 100000
$ns queue-limit $d(77) $r(1) 100000
set a(77) [new Agent/TCP/Newreno]
set k(77) [new Agent/TCPSink]
$a(77) set window_ 183
$ns attach-agent $s(77) $a(77)
$ns attach-agent $d(77) $k(77)
$ns connect $a(77) $k(77)
set app(77) [$a(77) attach-app FTP]
$ns at 0.215 "$app(77) start"
set s(78) [$ns node]
set d(78) [$ns node]
$ns duplex-link $s(78) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(78) 32212350 0.022710000 DropTail
$ns queue-limit $s(78) $r(0) 100000
$ns queue-limit $r(0) $s(78) 100000
$ns queue-limit $r(1) $d(78) 100000
$ns queue-limit $d(78) $r(1) 100000
set a(78) [new Agent/TCP/Newreno]
set k(78) [new Agent/TCPSink]
$a(78) set window_ 183
$ns attach-agent $s(78) $a(78)
$ns attach-agent $d(78) $k(78)
$ns connect $a(78) $k(78)
set app(78) [$a(78) attach-app FTP]
$ns at 0.213 "$app(78) start"
set s(79) [$ns node]
set d(79) [$ns node]
$ns duplex-link $s(79) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(79) 32212350 0.022710000 DropTail
$ns queue-limit $s(79) $r(0) 100000
$ns queue-limit $r(0) $s(79) 100000
$ns queue-limit $r(1) $d(79) 100000
$ns queue-limit $d(79) $r(1) 100000
set a(79) [new Agent/TCP/Newreno]
set k(79) [new Agent/TCPSink]
$a(79) set window_ 183
$ns attach-agent $s(79) $a(79)
$ns attach-agent $d(79) $k(79)
$ns connect $a(79) $k(79)
set app(79) [$a(79) attach-app FTP]
$ns at 0.952 "$app(79) start"
set s(80) [$ns node]
set d(80) [$ns node]
$ns duplex-link $s(80) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(80) 32212350 0.022710000 DropTail
$ns queue-limit $s(80) $r(0) 100000
$ns queue-limit $r(0) $s(80) 100000
$ns queue-limit $r(1) $d(80) 100000
$ns queue-limit $d(80) $r(1) 100000
set a(80) [new Agent/TCP/Newreno]
set k(80) [new Agent/TCPSink]
$a(80) set window_ 183
$ns attach-agent $s(80) $a(80)
$ns attach-agent $d(80) $k(80)
$ns connect $a(80) $k(80)
set app(80) [$a(80) attach-app FTP]
$ns at 0.639 "$app(80) start"
set s(81) [$ns node]
set d(81) [$ns node]
$ns duplex-link $s(81) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(81) 32212350 0.022710000 DropTail
$ns queue-limit $s(81) $r(0) 100000
$ns queue-limit $r(0) $s(81) 100000
$ns queue-limit $r(1) $d(81) 100000
$ns queue-limit $d(81) $r(1) 100000
set a(81) [new Agent/TCP/Newreno]
set k(81) [new Agent/TCPSink]
$a(81) set window_ 183
$ns attach-agent $s(81) $a(81)
$ns attach-agent $d(81) $k(81)
$ns connect $a(81) $k(81)
set app(81) [$a(81) attach-app FTP]
$ns at 0.322 "$app(81) start"
set s(82) [$ns node]
set d(82) [$ns node]
$ns duplex-link $s(82) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(82) 32212350 0.022710000 DropTail
$ns queue-limit $s(82) $r(0) 100000
$ns queue-limit $r(0) $s(82) 100000
$ns queue-limit $r(1) $d(82) 100000
$ns queue-limit $d(82) $r(1) 100000
set a(82) [new Agent/TCP/Newreno]
set k(82) [new Agent/TCPSink]
$a(82) set window_ 183
$ns attach-agent $s(82) $a(82)
$ns attach-agent $d(82) $k(82)
$ns connect $a(82) $k(82)
set app(82) [$a(82) attach-app FTP]
$ns at 0.928 "$app(82) start"
set s(83) [$ns node]
set d(83) [$ns node]
$ns duplex-link $s(83) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(83) 32212350 0.022710000 DropTail
$ns queue-limit $s(83) $r(0) 100000
$ns queue-limit $r(0) $s(83) 100000
$ns queue-limit $r(1) $d(83) 100000
$ns queue-limit $d(83) $r(1) 100000
set a(83) [new Agent/TCP/Newreno]
set k(83) [new Agent/TCPSink]
$a(83) set window_ 183
$ns attach-agent $s(83) $a(83)
$ns attach-agent $d(83) $k(83)
$ns connect $a(83) $k(83)
set app(83) [$a(83) attach-app FTP]
$ns at 0.86 "$app(83) start"
set s(84) [$ns node]
set d(84) [$ns node]
$ns duplex-link $s(84) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(84) 32212350 0.022710000 DropTail
$ns queue-limit $s(84) $r(0) 100000
$ns queue-limit $r(0) $s(84) 100000
$ns queue-limit $r(1) $d(84) 100000
$ns queue-limit $d(84) $r(1) 100000
set a(84) [new Agent/TCP/Newreno]
set k(84) [new Agent/TCPSink]
$a(84) set window_ 183
$ns attach-agent $s(84) $a(84)
$ns attach-agent $d(84) $k(84)
$ns connect $a(84) $k(84)
set app(84) [$a(84) attach-app FTP]
$ns at 0.949 "$app(84) start"
set s(85) [$ns node]
set d(85) [$ns node]
$ns duplex-link $s(85) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(85) 32212350 0.022710000 DropTail
$ns queue-limit $s(85) $r(0) 100000
$ns queue-limit $r(0) $s(85) 100000
$ns queue-limit $r(1) $d(85) 100000
$ns queue-limit $d(85) $r(1) 100000
set a(85) [new Agent/TCP/Newreno]
set k(85) [new Agent/TCPSink]
$a(85) set window_ 183
$ns attach-agent $s(85) $a(85)
$ns attach-agent $d(85) $k(85)
$ns connect $a(85) $k(85)
set app(85) [$a(85) attach-app FTP]
$ns at 0.705 "$app(85) start"
set s(86) [$ns node]
set d(86) [$ns node]
$ns duplex-link $s(86) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(86) 32212350 0.022710000 DropTail
$ns queue-limit $s(86) $r(0) 100000
$ns queue-limit $r(0) $s(86) 100000
$ns queue-limit $r(1) $d(86) 100000
$ns queue-limit $d(86) $r(1) 100000
set a(86) [new Agent/TCP/Newreno]
set k(86) [new Agent/TCPSink]
$a(86) set window_ 183
$ns attach-agent $s(86) $a(86)
$ns attach-agent $d(86) $k(86)
$ns connect $a(86) $k(86)
set app(86) [$a(86) attach-app FTP]
$ns at 0.597 "$app(86) start"
set s(87) [$ns node]
set d(87) [$ns node]
$ns duplex-link $s(87) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(87) 32212350 0.022710000 DropTail
$ns queue-limit $s(87) $r(0) 100000
$ns queue-limit $r(0) $s(87) 100000
$ns queue-limit $r(1) $d(87) 100000
$ns queue-limit $d(87) $r(1) 100000
set a(87) [new Agent/TCP/Newreno]
set k(87) [new Agent/TCPSink]
$a(87) set window_ 183
$ns attach-agent $s(87) $a(87)
$ns attach-agent $d(87) $k(87)
$ns connect $a(87) $k(87)
set app(87) [$a(87) attach-app FTP]
$ns at 0.22 "$app(87) start"
set s(88) [$ns node]
set d(88) [$ns node]
$ns duplex-link $s(88) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(88) 32212350 0.022710000 DropTail
$ns queue-limit $s(88) $r(0) 100000
$ns queue-limit $r(0) $s(88) 100000
$ns queue-limit $r(1) $d(88) 100000
$ns queue-limit $d(88) $r(1) 100000
set a(88) [new Agent/TCP/Newreno]
set k(88) [new Agent/TCPSink]
$a(88) set window_ 183
$ns attach-agent $s(88) $a(88)
$ns attach-agent $d(88) $k(88)
$ns connect $a(88) $k(88)
set app(88) [$a(88) attach-app FTP]
$ns at 0.651 "$app(88) start"
set s(89) [$ns node]
set d(89) [$ns node]
$ns duplex-link $s(89) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(89) 32212350 0.022710000 DropTail
$ns queue-limit $s(89) $r(0) 100000
$ns queue-limit $r(0) $s(89) 100000
$ns queue-limit $r(1) $d(89) 100000
$ns queue-limit $d(89) $r(1) 100000
set a(89) [new Agent/TCP/Newreno]
set k(89) [new Agent/TCPSink]
$a(89) set window_ 183
$ns attach-agent $s(89) $a(89)
$ns attach-agent $d(89) $k(89)
$ns connect $a(89) $k(89)
set app(89) [$a(89) attach-app FTP]
$ns at 0.16 "$app(89) start"
set s(90) [$ns node]
set d(90) [$ns node]
$ns duplex-link $s(90) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(90) 32212350 0.022710000 DropTail
$ns queue-limit $s(90) $r(0) 100000
$ns queue-limit $r(0) $s(90) 100000
$ns queue-limit $r(1) $d(90) 100000
$ns queue-limit $d(90) $r(1) 100000
set a(90) [new Agent/TCP/Newreno]
set k(90) [new Agent/TCPSink]
$a(90) set window_ 183
$ns attach-agent $s(90) $a(90)
$ns attach-agent $d(90) $k(90)
$ns connect $a(90) $k(90)
set app(90) [$a(90) attach-app FTP]
$ns at 0.275 "$app(90) start"
set s(91) [$ns node]
set d(91) [$ns node]
$ns duplex-link $s(91) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(91) 32212350 0.022710000 DropTail
$ns queue-limit $s(91) $r(0) 100000
$ns queue-limit $r(0) $s(91) 100000
$ns queue-limit $r(1) $d(91) 100000
$ns queue-limit $d(91) $r(1) 100000
set a(91) [new Agent/TCP/Newreno]
set k(91) [new Agent/TCPSink]
$a(91) set window_ 183
$ns attach-agent $s(91) $a(91)
$ns attach-agent $d(91) $k(91)
$ns connect $a(91) $k(91)
set app(91) [$a(91) attach-app FTP]
$ns at 0.856 "$app(91) start"
set s(92) [$ns node]
set d(92) [$ns node]
$ns duplex-link $s(92) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(92) 32212350 0.022710000 DropTail
$ns queue-limit $s(92) $r(0) 100000
$ns queue-limit $r(0) $s(92) 100000
$ns queue-limit $r(1) $d(92) 100000
$ns queue-limit $d(92) $r(1) 100000
set a(92) [new Agent/TCP/Newreno]
set k(92) [new Agent/TCPSink]
$a(92) set window_ 183
$ns attach-agent $s(92) $a(92)
$ns attach-agent $d(92) $k(92)
$ns connect $a(92) $k(92)
set app(92) [$a(92) attach-app FTP]
$ns at 0.414 "$app(92) start"
set s(93) [$ns node]
set d(93) [$ns node]
$ns duplex-link $s(93) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(93) 32212350 0.022710000 DropTail
$ns queue-limit $s(93) $r(0) 100000
$ns queue-limit $r(0) $s(93) 100000
$ns queue-limit $r(1) $d(93) 100000
$ns queue-limit $d(93) $r(1) 100000
set a(93) [new Agent/TCP/Newreno]
set k(93) [new Agent/TCPSink]
$a(93) set window_ 183
$ns attach-agent $s(93) $a(93)
$ns attach-agent $d(93) $k(93)
$ns connect $a(93) $k(93)
set app(93) [$a(93) attach-app FTP]
$ns at 0.518 "$app(93) start"
set s(94) [$ns node]
set d(94) [$ns node]
$ns duplex-link $s(94) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(94) 32212350 0.022710000 DropTail
$ns queue-limit $s(94) $r(0) 100000
$ns queue-limit $r(0) $s(94) 100000
$ns queue-limit $r(1) $d(94) 100000
$ns queue-limit $d(94) $r(1) 100000
set a(94) [new Agent/TCP/Newreno]
set k(94) [new Agent/TCPSink]
$a(94) set window_ 183
$ns attach-agent $s(94) $a(94)
$ns attach-agent $d(94) $k(94)
$ns connect $a(94) $k(94)
set app(94) [$a(94) attach-app FTP]
$ns at 0.232 "$app(94) start"
set s(95) [$ns node]
set d(95) [$ns node]
$ns duplex-link $s(95) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(95) 32212350 0.022710000 DropTail
$ns queue-limit $s(95) $r(0) 100000
$ns queue-limit $r(0) $s(95) 100000
$ns queue-limit $r(1) $d(95) 100000
$ns queue-limit $d(95) $r(1) 100000
set a(95) [new Agent/TCP/Newreno]
set k(95) [new Agent/TCPSink]
$a(95) set window_ 183
$ns attach-agent $s(95) $a(95)
$ns attach-agent $d(95) $k(95)
$ns connect $a(95) $k(95)
set app(95) [$a(95) attach-app FTP]
$ns at 0.085 "$app(95) start"
set s(96) [$ns node]
set d(96) [$ns node]
$ns duplex-link $s(96) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(96) 32212350 0.022710000 DropTail
$ns queue-limit $s(96) $r(0) 100000
$ns queue-limit $r(0) $s(96) 100000
$ns queue-limit $r(1) $d(96) 100000
$ns queue-limit $d(96) $r(1) 100000
set a(96) [new Agent/TCP/Newreno]
set k(96) [new Agent/TCPSink]
$a(96) set window_ 183
$ns attach-agent $s(96) $a(96)
$ns attach-agent $d(96) $k(96)
$ns connect $a(96) $k(96)
set app(96) [$a(96) attach-app FTP]
$ns at 0.842 "$app(96) start"
set s(97) [$ns node]
set d(97) [$ns node]
$ns duplex-link $s(97) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(97) 32212350 0.022710000 DropTail
$ns queue-limit $s(97) $r(0) 100000
$ns queue-limit $r(0) $s(97) 100000
$ns queue-limit $r(1) $d(97) 100000
$ns queue-limit $d(97) $r(1) 100000
set a(97) [new Agent/TCP/Newreno]
set k(97) [new Agent/TCPSink]
$a(97) set window_ 183
$ns attach-agent $s(97) $a(97)
$ns attach-agent $d(97) $k(97)
$ns connect $a(97) $k(97)
set app(97) [$a(97) attach-app FTP]
$ns at 0.196 "$app(97) start"
set s(98) [$ns node]
set d(98) [$ns node]
$ns duplex-link $s(98) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(98) 32212350 0.022710000 DropTail
$ns queue-limit $s(98) $r(0) 100000
$ns queue-limit $r(0) $s(98) 100000
$ns queue-limit $r(1) $d(98) 100000
$ns queue-limit $d(98) $r(1) 100000
set a(98) [new Agent/TCP/Newreno]
set k(98) [new Agent/TCPSink]
$a(98) set window_ 183
$ns attach-agent $s(98) $a(98)
$ns attach-agent $d(98) $k(98)
$ns connect $a(98) $k(98)
set app(98) [$a(98) attach-app FTP]
$ns at 0.828 "$app(98) start"
set s(99) [$ns node]
set d(99) [$ns node]
$ns duplex-link $s(99) $r(0) 32212350 0.022710000 DropTail
$ns duplex-link $r(1) $d(99) 32212350 0.022710000 DropTail
$ns queue-limit $s(99) $r(0) 100000
$ns queue-limit $r(0) $s(99) 100000
$ns queue-limit $r(1) $d(99) 100000
$ns queue-limit $d(99) $r(1) 100000
set a(99) [new Agent/TCP/Newreno]
set k(99) [new Agent/TCPSink]
$a(99) set window_ 183
$ns attach-agent $s(99) $a(99)
$ns attach-agent $d(99) $k(99)
$ns connect $a(99) $k(99)
set app(99) [$a(99) attach-app FTP]
$ns at 0.069 "$app(99) start"
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
    puts "tcp 4 [$a(4) set ack_] [$a(4) set nrexmitpack_] [$a(4) set nrexmit_]"
    puts "tcp 5 [$a(5) set ack_] [$a(5) set nrexmitpack_] [$a(5) set nrexmit_]"
    puts "tcp 6 [$a(6) set ack_] [$a(6) set nrexmitpack_] [$a(6) set nrexmit_]"
    puts "tcp 7 [$a(7) set ack_] [$a(7) set nrexmitpack_] [$a(7) set nrexmit_]"
    puts "tcp 8 [$a(8) set ack_] [$a(8) set nrexmitpack_] [$a(8) set nrexmit_]"
    puts "tcp 9 [$a(9) set ack_] [$a(9) set nrexmitpack_] [$a(9) set nrexmit_]"
    puts "tcp 10 [$a(10) set ack_] [$a(10) set nrexmitpack_] [$a(10) set nrexmit_]"
    puts "tcp 11 [$a(11) set ack_] [$a(11) set nrexmitpack_] [$a(11) set nrexmit_]"
    puts "tcp 12 [$a(12) set ack_] [$a(12) set nrexmitpack_] [$a(12) set nrexmit_]"
    puts "tcp 13 [$a(13) set ack_] [$a(13) set nrexmitpack_] [$a(13) set nrexmit_]"
    puts "tcp 14 [$a(14) set ack_] [$a(14) set nrexmitpack_] [$a(14) set nrexmit_]"
    puts "tcp 15 [$a(15) set ack_] [$a(15) set nrexmitpack_] [$a(15) set nrexmit_]"
    puts "tcp 16 [$a(16) set ack_] [$a(16) set nrexmitpack_] [$a(16) set nrexmit_]"
    puts "tcp 17 [$a(17) set ack_] [$a(17) set nrexmitpack_] [$a(17) set nrexmit_]"
    puts "tcp 18 [$a(18) set ack_] [$a(18) set nrexmitpack_] [$a(18) set nrexmit_]"
    puts "tcp 19 [$a(19) set ack_] [$a(19) set nrexmitpack_] [$a(19) set nrexmit_]"
    puts "tcp 20 [$a(20) set ack_] [$a(20) set nrexmitpack_] [$a(20) set nrexmit_]"
    puts "tcp 21 [$a(21) set ack_] [$a(21) set nrexmitpack_] [$a(21) set nrexmit_]"
    puts "tcp 22 [$a(22) set ack_] [$a(22) set nrexmitpack_] [$a(22) set nrexmit_]"
    puts "tcp 23 [$a(23) set ack_] [$a(23) set nrexmitpack_] [$a(23) set nrexmit_]"
    puts "tcp 24 [$a(24) set ack_] [$a(24) set nrexmitpack_] [$a(24) set nrexmit_]"
    puts "tcp 25 [$a(25) set ack_] [$a(25) set nrexmitpack_] [$a(25) set nrexmit_]"
    puts "tcp 26 [$a(26) set ack_] [$a(26) set nrexmitpack_] [$a(26) set nrexmit_]"
    puts "tcp 27 [$a(27) set ack_] [$a(27) set nrexmitpack_] [$a(27) set nrexmit_]"
    puts "tcp 28 [$a(28) set ack_] [$a(28) set nrexmitpack_] [$a(28) set nrexmit_]"
    puts "tcp 29 [$a(29) set ack_] [$a(29) set nrexmitpack_] [$a(29) set nrexmit_]"
    puts "tcp 30 [$a(30) set ack_] [$a(30) set nrexmitpack_] [$a(30) set nrexmit_]"
    puts "tcp 31 [$a(31) set ack_] [$a(31) set nrexmitpack_] [$a(31) set nrexmit_]"
    puts "tcp 32 [$a(32) set ack_] [$a(32) set nrexmitpack_] [$a(32) set nrexmit_]"
    puts "tcp 33 [$a(33) set ack_] [$a(33) set nrexmitpack_] [$a(33) set nrexmit_]"
    puts "tcp 34 [$a(34) set ack_] [$a(34) set nrexmitpack_] [$a(34) set nrexmit_]"
    puts "tcp 35 [$a(35) set ack_] [$a(35) set nrexmitpack_] [$a(35) set nrexmit_]"
    puts "tcp 36 [$a(36) set ack_] [$a(36) set nrexmitpack_] [$a(36) set nrexmit_]"
    puts "tcp 37 [$a(37) set ack_] [$a(37) set nrexmitpack_] [$a(37) set nrexmit_]"
    puts "tcp 38 [$a(38) set ack_] [$a(38) set nrexmitpack_] [$a(38) set nrexmit_]"
    puts "tcp 39 [$a(39) set ack_] [$a(39) set nrexmitpack_] [$a(39) set nrexmit_]"
    puts "tcp 40 [$a(40) set ack_] [$a(40) set nrexmitpack_] [$a(40) set nrexmit_]"
    puts "tcp 41 [$a(41) set ack_] [$a(41) set nrexmitpack_] [$a(41) set nrexmit_]"
    puts "tcp 42 [$a(42) set ack_] [$a(42) set nrexmitpack_] [$a(42) set nrexmit_]"
    puts "tcp 43 [$a(43) set ack_] [$a(43) set nrexmitpack_] [$a(43) set nrexmit_]"
    puts "tcp 44 [$a(44) set ack_] [$a(44) set nrexmitpack_] [$a(44) set nrexmit_]"
    puts "tcp 45 [$a(45) set ack_] [$a(45) set nrexmitpack_] [$a(45) set nrexmit_]"
    puts "tcp 46 [$a(46) set ack_] [$a(46) set nrexmitpack_] [$a(46) set nrexmit_]"
    puts "tcp 47 [$a(47) set ack_] [$a(47) set nrexmitpack_] [$a(47) set nrexmit_]"
    puts "tcp 48 [$a(48) set ack_] [$a(48) set nrexmitpack_] [$a(48) set nrexmit_]"
    puts "tcp 49 [$a(49) set ack_] [$a(49) set nrexmitpack_] [$a(49) set nrexmit_]"
    puts "tcp 50 [$a(50) set ack_] [$a(50) set nrexmitpack_] [$a(50) set nrexmit_]"
    puts "tcp 51 [$a(51) set ack_] [$a(51) set nrexmitpack_] [$a(51) set nrexmit_]"
    puts "tcp 52 [$a(52) set ack_] [$a(52) set nrexmitpack_] [$a(52) set nrexmit_]"
    puts "tcp 53 [$a(53) set ack_] [$a(53) set nrexmitpack_] [$a(53) set nrexmit_]"
    puts "tcp 54 [$a(54) set ack_] [$a(54) set nrexmitpack_] [$a(54) set nrexmit_]"
    puts "tcp 55 [$a(55) set ack_] [$a(55) set nrexmitpack_] [$a(55) set nrexmit_]"
    puts "tcp 56 [$a(56) set ack_] [$a(56) set nrexmitpack_] [$a(56) set nrexmit_]"
    puts "tcp 57 [$a(57) set ack_] [$a(57) set nrexmitpack_] [$a(57) set nrexmit_]"
    puts "tcp 58 [$a(58) set ack_] [$a(58) set nrexmitpack_] [$a(58) set nrexmit_]"
    puts "tcp 59 [$a(59) set ack_] [$a(59) set nrexmitpack_] [$a(59) set nrexmit_]"
    puts "tcp 60 [$a(60) set ack_] [$a(60) set nrexmitpack_] [$a(60) set nrexmit_]"
    puts "tcp 61 [$a(61) set ack_] [$a(61) set nrexmitpack_] [$a(61) set nrexmit_]"
    puts "tcp 62 [$a(62) set ack_] [$a(62) set nrexmitpack_] [$a(62) set nrexmit_]"
    puts "tcp 63 [$a(63) set ack_] [$a(63) set nrexmitpack_] [$a(63) set nrexmit_]"
    puts "tcp 64 [$a(64) set ack_] [$a(64) set nrexmitpack_] [$a(64) set nrexmit_]"
    puts "tcp 65 [$a(65) set ack_] [$a(65) set nrexmitpack_] [$a(65) set nrexmit_]"
    puts "tcp 66 [$a(66) set ack_] [$a(66) set nrexmitpack_] [$a(66) set nrexmit_]"
    puts "tcp 67 [$a(67) set ack_] [$a(67) set nrexmitpack_] [$a(67) set nrexmit_]"
    puts "tcp 68 [$a(68) set ack_] [$a(68) set nrexmitpack_] [$a(68) set nrexmit_]"
    puts "tcp 69 [$a(69) set ack_] [$a(69) set nrexmitpack_] [$a(69) set nrexmit_]"
    puts "tcp 70 [$a(70) set ack_] [$a(70) set nrexmitpack_] [$a(70) set nrexmit_]"
    puts "tcp 71 [$a(71) set ack_] [$a(71) set nrexmitpack_] [$a(71) set nrexmit_]"
    puts "tcp 72 [$a(72) set ack_] [$a(72) set nrexmitpack_] [$a(72) set nrexmit_]"
    puts "tcp 73 [$a(73) set ack_] [$a(73) set nrexmitpack_] [$a(73) set nrexmit_]"
    puts "tcp 74 [$a(74) set ack_] [$a(74) set nrexmitpack_] [$a(74) set nrexmit_]"
    puts "tcp 75 [$a(75) set ack_] [$a(75) set nrexmitpack_] [$a(75) set nrexmit_]"
    puts "tcp 76 [$a(76) set ack_] [$a(76) set nrexmitpack_] [$a(76) set nrexmit_]"
    puts "tcp 77 [$a(77) set ack_] [$a(77) set nrexmitpack_] [$a(77) set nrexmit_]"
    puts "tcp 78 [$a(78) set ack_] [$a(78) set nrexmitpack_] [$a(78) set nrexmit_]"
    puts "tcp 79 [$a(79) set ack_] [$a(79) set nrexmitpack_] [$a(79) set nrexmit_]"
    puts "tcp 80 [$a(80) set ack_] [$a(80) set nrexmitpack_] [$a(80) set nrexmit_]"
    puts "tcp 81 [$a(81) set ack_] [$a(81) set nrexmitpack_] [$a(81) set nrexmit_]"
    puts "tcp 82 [$a(82) set ack_] [$a(82) set nrexmitpack_] [$a(82) set nrexmit_]"
    puts "tcp 83 [$a(83) set ack_] [$a(83) set nrexmitpack_] [$a(83) set nrexmit_]"
    puts "tcp 84 [$a(84) set ack_] [$a(84) set nrexmitpack_] [$a(84) set nrexmit_]"
    puts "tcp 85 [$a(85) set ack_] [$a(85) set nrexmitpack_] [$a(85) set nrexmit_]"
    puts "tcp 86 [$a(86) set ack_] [$a(86) set nrexmitpack_] [$a(86) set nrexmit_]"
    puts "tcp 87 [$a(87) set ack_] [$a(87) set nrexmitpack_] [$a(87) set nrexmit_]"
    puts "tcp 88 [$a(88) set ack_] [$a(88) set nrexmitpack_] [$a(88) set nrexmit_]"
    puts "tcp 89 [$a(89) set ack_] [$a(89) set nrexmitpack_] [$a(89) set nrexmit_]"
    puts "tcp 90 [$a(90) set ack_] [$a(90) set nrexmitpack_] [$a(90) set nrexmit_]"
    puts "tcp 91 [$a(91) set ack_] [$a(91) set nrexmitpack_] [$a(91) set nrexmit_]"
    puts "tcp 92 [$a(92) set ack_] [$a(92) set nrexmitpack_] [$a(92) set nrexmit_]"
    puts "tcp 93 [$a(93) set ack_] [$a(93) set nrexmitpack_] [$a(93) set nrexmit_]"
    puts "tcp 94 [$a(94) set ack_] [$a(94) set nrexmitpack_] [$a(94) set nrexmit_]"
    puts "tcp 95 [$a(95) set ack_] [$a(95) set nrexmitpack_] [$a(95) set nrexmit_]"
    puts "tcp 96 [$a(96) set ack_] [$a(96) set nrexmitpack_] [$a(96) set nrexmit_]"
    puts "tcp 97 [$a(97) set ack_] [$a(97) set nrexmitpack_] [$a(97) set nrexmit_]"
    puts "tcp 98 [$a(98) set ack_] [$a(98) set nrexmitpack_] [$a(98) set nrexmit_]"
    puts "tcp 99 [$a(99) set ack_] [$a(99) set nrexmitpack_] [$a(99) set nrexmit_]"
    puts "drops 0 [$qmon(0) set pdrops_]"
    exit 0
}
$ns at 22.7 "finish"
$ns run
