# Shared by wired.tcl and lan.tcl: option parsing and the TCP settings that make ns-2
# model what the tcplab side of each case models (README.md, "Matching the two tools").

# Overrides the defaults in the global array `opt` with the key=value arguments;
# an unknown key or a malformed argument exits with status 2.
proc parse_options {script} {
    global opt argv
    foreach arg $argv {
        set kv [split $arg =]
        if {[llength $kv] != 2 || ![info exists opt([lindex $kv 0])]} {
            puts stderr "$script: bad argument '$arg' (expected key=value with a known key)"
            exit 2
        }
        set opt([lindex $kv 0]) [lindex $kv 1]
    }
}

# No send overhead, RFC 6298 initial RTO unless told, every segment ACKed by TCPSink
# (40-byte ACKs), payload = packetSize_. The RTT clock ticks every 100 us: fine enough
# for these RTTs, and coarse enough that rtt_update's 16-bit `delta` (RTT change in
# ticks) cannot overflow, as it does with 1 us ticks once a sample moves by > 32.7 ms.
proc match_tcplab_tcp {window iw minrto maxrto rtoinit} {
    Agent/TCP set tcpTick_ 0.0001
    Agent/TCP set overhead_ 0
    Agent/TCP set maxcwnd_ 0
    Agent/TCP set window_ $window
    Agent/TCP set windowInit_ $iw
    Agent/TCP set minrto_ $minrto
    Agent/TCP set maxrto_ $maxrto
    Agent/TCP set rtxcur_init_ $rtoinit
}

# Puts `rng` on replication `run`'s own stream: a fixed seed and `run` substreams on
# (MRG32k3a's substreams are 2^76 draws apart). Seeding with the run number itself is
# not independent: the generator is linear, so seeds 1, 2, 3 give the same sequence
# scaled by 1, 2, 3 (mod 1), and their first draws are 0.00034 x seed — the first packet
# of every run is lost at any loss rate above 0.0004 x seed.
proc independent_stream {rng run} {
    $rng seed 12345
    for {set i 0} {$i < $run} {incr i} {
        $rng next-substream
    }
}

# The default generator (RED's drops, 802.3 backoff, ...) on replication `run`'s own
# stream, instead of `ns-random run` (see independent_stream).
proc seed_default_rng {run} {
    global defaultRNG
    independent_stream $defaultRNG $run
}

# Bernoulli loss of `rate` per packet on the link from node `from` to node `to`, drawn
# from its own generator seeded `seed`. `$ns lossmodel` puts the error module at the
# head of the link: before the queue (tcplab's loss_at = "before_queue"). Losses go to
# a null agent, not the link's drop head, so that a queue monitor counts queue drops
# only (tcplab reports the two separately).
proc add_random_loss {ns from to rate seed} {
    set rng [new RNG]
    # Runs 1000 + seed: apart from the default generator's (seed_default_rng).
    independent_stream $rng [expr {$seed + 1000}]
    set uniform [new RandomVariable/Uniform]
    $uniform use-rng $rng
    set em [new ErrorModel]
    $em set rate_ $rate
    $em unit pkt
    $em ranvar $uniform
    $ns lossmodel $em $from $to
    $em drop-target [new Agent/Null]
}

# ns-2's queue-limit for a DropTail queue that holds `waiting` packets besides the one
# being transmitted, as tcplab's `limit` counts: DropTail::enque drops an arrival when
# `q_->length() + 1 >= qlim_` (queue/drop-tail.cc), so it keeps at most qlim_ - 1
# waiting. (RED's hard limit, `qlen >= qlim` before the arrival, keeps qlim_ waiting.)
proc droptail_limit {waiting} {
    return [expr {$waiting + 1}]
}
