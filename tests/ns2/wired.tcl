# ns-2.35 side of the differential suite (tests/ns2/README.md): N TCP senders, each on
# its own access link to router r, share one bottleneck r -> server.
#
#   c0 ..c(N-1) -(access)-> r -(bottleneck: queue, optional random loss)-> server
#
# usage: ns wired.tcl key=value ...   (every key has a default below)
# prints "flow I START ACKED TIMEOUTS RETX_PACKETS SRTT_S" per flow, then "drops N" and
# "departures N" for the bottleneck queue (random losses are not counted there).

array set opt {
    flows 10  variant Reno  sizes 1000  window 50  iw 1
    minrto 0.2  maxrto 60  rtoinit 1.0  singledup 1  impatient 1
    access_bw 10Mb  access_delay 0.5ms  neck_bw 10Mb  neck_delay 0.5ms
    queue DropTail  qlim 50  red_bytes 0  red_qbytes 0  red_thresh 0  red_maxthresh 0
    red_qweight -1  red_pktsize 500  red_gentle 1  red_targetdelay 0.005
    loss 0  duration 30  spacing 0  seed 1  trace 0  tick 0.0001
}
source [file join [file dirname [info script]] common.tcl]
parse_options wired.tcl

set ns [new Simulator]
# RED draws from the default generator; seed it so every seed is a distinct run.
seed_default_rng $opt(seed)

match_tcplab_tcp $opt(window) $opt(iw) $opt(minrto) $opt(maxrto) $opt(rtoinit)
# tick=0.01 is ns-2's own tcpTick_ (a study's reference runs ns-2 as its paper would).
Agent/TCP set tcpTick_ $opt(tick)
Agent/TCP set singledup_ $opt(singledup)
Agent/TCP/Newreno set newreno_changes1_ $opt(impatient)
Queue/DropTail set summarystats_ false

Queue/RED set bytes_ $opt(red_bytes)
Queue/RED set queue_in_bytes_ $opt(red_qbytes)
Queue/RED set thresh_ $opt(red_thresh)
Queue/RED set maxthresh_ $opt(red_maxthresh)
Queue/RED set q_weight_ $opt(red_qweight)
Queue/RED set mean_pktsize_ $opt(red_pktsize)
Queue/RED set gentle_ $opt(red_gentle)
Queue/RED set targetdelay_ $opt(red_targetdelay)

set r [$ns node]
set server [$ns node]
$ns simplex-link $r $server $opt(neck_bw) $opt(neck_delay) $opt(queue)
$ns simplex-link $server $r $opt(neck_bw) $opt(neck_delay) DropTail
# qlim counts packets waiting (tcplab's limit); RED's hard limit counts the same way.
$ns queue-limit $r $server [expr {$opt(queue) == "DropTail" ? [droptail_limit $opt(qlim)] : $opt(qlim)}]
$ns queue-limit $server $r 100000
set qmon [$ns monitor-queue $r $server ""]

if {$opt(loss) > 0} {
    add_random_loss $ns $r $server $opt(loss) $opt(seed)
}

set sizes [split $opt(sizes) ,]
for {set i 0} {$i < $opt(flows)} {incr i} {
    set c($i) [$ns node]
    $ns duplex-link $c($i) $r $opt(access_bw) $opt(access_delay) DropTail
    $ns queue-limit $c($i) $r 100000
    $ns queue-limit $r $c($i) 100000
    if {$opt(variant) == "Sack1"} {
        set tcp($i) [new Agent/TCP/Sack1]
        set sink($i) [new Agent/TCPSink/Sack1]
    } elseif {$opt(variant) == "Reno"} {
        set tcp($i) [new Agent/TCP/Reno]
        set sink($i) [new Agent/TCPSink]
    } else {
        set tcp($i) [new Agent/TCP/$opt(variant)]
        set sink($i) [new Agent/TCPSink]
    }
    $tcp($i) set packetSize_ [lindex $sizes [expr $i % [llength $sizes]]]
    $ns attach-agent $c($i) $tcp($i)
    $ns attach-agent $server $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    set start($i) [expr $i * $opt(spacing)]
    $ns at $start($i) "$ftp($i) start"
}

proc finish {} {
    global opt tcp start qmon
    for {set i 0} {$i < $opt(flows)} {incr i} {
        # srtt_ is in ticks, scaled by 8 (tcp.cc, T_SRTT_BITS).
        set srtt [expr {[$tcp($i) set srtt_] / 8.0 * $opt(tick)}]
        puts "flow $i $start($i) [$tcp($i) set ack_] [$tcp($i) set nrexmit_] [$tcp($i) set nrexmitpack_] $srtt"
    }
    puts "drops [$qmon set pdrops_]"
    puts "departures [$qmon set pdepartures_]"
    exit 0
}
# trace=S: print flow 0's cwnd, ssthresh and highest ACK every S seconds (debugging).
proc trace {} {
    global ns opt tcp
    puts "trace [$ns now] [$tcp(0) set cwnd_] [$tcp(0) set ssthresh_] [$tcp(0) set ack_] [$tcp(0) set nrexmit_]"
    $ns at [expr [$ns now] + $opt(trace)] "trace"
}
if {$opt(trace) > 0} { $ns at 0 "trace" }
$ns at $opt(duration) "finish"
$ns run
