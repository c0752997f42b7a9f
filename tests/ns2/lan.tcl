# ns-2.35 side of case (e) of the differential suite (tests/ns2/README.md): N TCP Reno
# clients and one server on a shared half-duplex Ethernet segment (make-lan, Mac/802_3:
# CSMA/CD with collisions and binary exponential backoff).
#
# usage: ns lan.tcl key=value ...   (every key has a default below; delay in ms)
# prints "flow I START ACKED TIMEOUTS RETX_PACKETS SRTT_S" per client, then "drops N" (the sum
# over the stations' interface queues).

array set opt {
    clients 2  bw 10Mb  delay 0.1  size 1000  window 50  qlim 50  duration 30  seed 1
    iw 1  minrto 0.2  maxrto 60  rtoinit 1.0  tick 0.0001
}
source [file join [file dirname [info script]] common.tcl]
parse_options lan.tcl

set ns [new Simulator]
# The 802.3 backoff draws from the default generator.
seed_default_rng $opt(seed)

match_tcplab_tcp $opt(window) $opt(iw) $opt(minrto) $opt(maxrto) $opt(rtoinit)
# tick=0.01 is ns-2's own tcpTick_ (a study's reference runs ns-2 as its paper would).
Agent/TCP set tcpTick_ $opt(tick)
Agent/TCP set packetSize_ $opt(size)
Queue/DropTail set limit_ [droptail_limit $opt(qlim)]
# make-lan's delay is the link layer's, paid on the way down and again on the way up;
# the channel adds its own 4 us. tcplab's segment delay is the whole station-to-station
# delay, so the LL gets half of it and the channel none.
Channel set delay_ 0

set server [$ns node]
set nodes $server
for {set i 0} {$i < $opt(clients)} {incr i} {
    set c($i) [$ns node]
    lappend nodes $c($i)
}
set lan [$ns make-lan $nodes $opt(bw) [expr $opt(delay) / 2.0]ms LL Queue/DropTail Mac/802_3 Channel]

for {set i 0} {$i < $opt(clients)} {incr i} {
    set tcp($i) [new Agent/TCP/Reno]
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $c($i) $tcp($i)
    $ns attach-agent $server $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at 0 "$ftp($i) start"
}

# Interface-queue drops: a drop snoop with a queue monitor on each station's queue.
foreach n $nodes {
    set qm($n) [new QueueMonitor]
    set snoop [new SnoopQueue/Drop]
    $snoop set-monitor $qm($n)
    $snoop target [new Agent/Null]
    [[$lan set lanIface_($n)] set ifq_] drop-target $snoop
}

proc finish {} {
    global opt tcp nodes qm
    for {set i 0} {$i < $opt(clients)} {incr i} {
        # srtt_ is in ticks, scaled by 8 (tcp.cc, T_SRTT_BITS).
        set srtt [expr {[$tcp($i) set srtt_] / 8.0 * $opt(tick)}]
        puts "flow $i 0 [$tcp($i) set ack_] [$tcp($i) set nrexmit_] [$tcp($i) set nrexmitpack_] $srtt"
    }
    set drops 0
    foreach n $nodes { incr drops [$qm($n) set pdrops_] }
    puts "drops $drops"
    exit 0
}
$ns at $opt(duration) "finish"
$ns run
