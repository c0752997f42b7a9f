# ns-2.35 side of the jumbo study's reference runs (study_jumbo.py): the study's
# topology (python/tcplab/studies/jumbo/jumbo.toml) in ns-2, with ns-2.35's defaults
# wherever the study reads the paper as silent.
#
#   s0..s5 -> a,  s6..s11 -> b;  backbone a - b - c - d (RED both ways);  d -> r0..r11
#
# Nodes 0 and 6 send UDP CBR (180-byte and 64-byte packets), the others TCP Reno bulk
# (TCPSink, an ACK per segment) with a 20-segment window; all start at t = 0.
#
# usage: ns jumbo.tcl key=value ... (every key has a default below); `access` is a
# comma-separated list of the twelve access delays in ms (sender and receiver side).
# prints "node NAME ID" for each node, "flow I ACKED PACKETSIZE" per TCP flow, and
# writes the packet trace of links b->c, s6->b and d->r6/r7/r8 to `trace`.

array set opt {
    backbone 50Mb  jumbo 1  red_bytes 1  loss 0  seed 1  duration 30
    access 2,2,2,2,2,2,2,2,2,2,2,2  trace jumbo.tr
}
source [file join [file dirname [info script]] common.tcl]
parse_options jumbo.tcl

set ns [new Simulator]
# RED's drops draw from the default generator; each replication on its own stream.
seed_default_rng $opt(seed)

# RED as ns-2.35 configures it by default (automatic thresholds and weight, target
# delay 5 ms, max_p 0.1, gentle, mean packet 500 B), the queue counted in bytes with a
# hard limit of 300 x 500 = 150,000 B; byte mode (bytes_) on or off.
Queue/RED set bytes_ $opt(red_bytes)
Queue/RED set queue_in_bytes_ true
Queue/RED set thresh_ 0
Queue/RED set maxthresh_ 0
Queue/RED set q_weight_ -1
Queue/RED set mean_pktsize_ 500
Queue/RED set linterm_ 10
Queue/RED set gentle_ true
Queue/RED set targetdelay_ 0.005
Queue/DropTail set summarystats_ false

set tf [open $opt(trace) w]
foreach name {a b c d} { set n($name) [$ns node] }
foreach {x y} {a b b c c d} {
    $ns duplex-link $n($x) $n($y) $opt(backbone) 2ms RED
    $ns queue-limit $n($x) $n($y) 300
    $ns queue-limit $n($y) $n($x) 300
}
set delays [split $opt(access) ,]
for {set i 0} {$i < 12} {incr i} {
    set s($i) [$ns node]
    set r($i) [$ns node]
    set bw [expr {$i in {0 6 7 8} ? "100Mb" : "8Mb"}]
    set d [lindex $delays $i]ms
    $ns duplex-link $s($i) $n([expr {$i < 6 ? "a" : "b"}]) $bw $d DropTail
    $ns duplex-link $n(d) $r($i) 100Mb $d DropTail
    foreach {x y} [list $s($i) $n([expr {$i < 6 ? "a" : "b"}]) $n(d) $r($i)] {
        $ns queue-limit $x $y 1000
        $ns queue-limit $y $x 1000
    }
}
foreach {x y} [list $n(b) $n(c) $s(6) $n(b) $n(d) $r(6) $n(d) $r(7) $n(d) $r(8)] {
    $ns trace-queue $x $y $tf
}
# After the traces: the loss module goes to the link's head, before the enqueue trace,
# so the b->c trace sees only what reaches the queue.
if {$opt(loss) > 0} {
    add_random_loss $ns $n(b) $n(c) $opt(loss) $opt(seed)
}
foreach name {a b c d} { puts "node $name [$n($name) id]" }
for {set i 0} {$i < 12} {incr i} { puts "node s$i [$s($i) id]"; puts "node r$i [$r($i) id]" }

Agent/TCP set window_ 20
Agent/TCP set windowInit_ 1
for {set i 0} {$i < 12} {incr i} {
    if {$i == 0 || $i == 6} {
        set agent($i) [new Agent/UDP]
        set sink($i) [new Agent/Null]
        set app($i) [new Application/Traffic/CBR]
        # IP packets of 180 and 64 bytes, one every payload x 8 / rate (152 B at 1 Mb/s,
        # 36 B at 0.5 Mb/s), as the study's CBR sends.
        set size [expr {$i == 0 ? 180 : 64}]
        $app($i) set packetSize_ $size
        $agent($i) set packetSize_ $size
        $app($i) set interval_ [expr {$i == 0 ? 152 * 8 / 1e6 : 36 * 8 / 0.5e6}]
        $app($i) set random_ 0
    } else {
        set agent($i) [new Agent/TCP/Reno]
        set sink($i) [new Agent/TCPSink]
        $agent($i) set packetSize_ [expr {$i == 7 && $opt(jumbo) ? 9140 : 1460}]
        set app($i) [new Application/FTP]
    }
    $agent($i) set fid_ $i
    $ns attach-agent $s($i) $agent($i)
    $ns attach-agent $r($i) $sink($i)
    $ns connect $agent($i) $sink($i)
    $app($i) attach-agent $agent($i)
    $ns at 0.0 "$app($i) start"
}

proc finish {} {
    global agent tf
    for {set i 0} {$i < 12} {incr i} {
        if {$i != 0 && $i != 6} {
            puts "flow $i [$agent($i) set ack_] [$agent($i) set packetSize_]"
        }
    }
    close $tf
    exit 0
}
$ns at $opt(duration) "finish"
$ns run
