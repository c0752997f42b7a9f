// ns-3 version of tcplab's dumbbell benchmarks (B1-B3 of ../shared/DESIGN.md),
// configured to model what the tcplab scenarios model (benchmarks/README.md, "Matching
// the tools"): NewReno, 1460-byte segments (1500-byte IP packets, no timestamps), an ACK
// per segment, initial window IW, minimum RTO 200 ms, send/receive buffers far above
// BDP + queue, no traffic-control layer, DropTail device queues counted in packets
// (the packet being serialized is not in the queue).
//
// Build: benchmarks/ns3/build.sh (compiles against the headers and libraries of the
// pinned PyPI `ns3` wheel). Output, one line each: "flow I START_S RX_BYTES",
// "drops N", "departures N".

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace ns3;

static uint64_t g_drops = 0;
static uint64_t g_departures = 0;

static uint32_t g_max_queue = 0;
static void OnDrop(Ptr<const QueueDiscItem>) { ++g_drops; }

static void OnQueueLength(uint32_t, uint32_t now) { g_max_queue = std::max(g_max_queue, now); }
static void OnDeparture(Ptr<const Packet>) { ++g_departures; }

int main(int argc, char* argv[]) {
    uint32_t flows = 10;
    std::string accessBw = "1Gbps", accessDelay = "1ms", neckBw = "100Mbps", neckDelay = "20ms";
    uint32_t neckQueue = 100, iw = 2, delayMod = 0;
    double duration = 60, spacing = 0.1;
    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of flows", flows);
    cmd.AddValue("accessBw", "access bandwidth", accessBw);
    cmd.AddValue("accessDelay", "access delay", accessDelay);
    cmd.AddValue("neckBw", "bottleneck bandwidth", neckBw);
    cmd.AddValue("neckDelay", "bottleneck delay", neckDelay);
    cmd.AddValue("neckQueue", "bottleneck DropTail limit, packets", neckQueue);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("spacing", "start time spacing, s", spacing);
    cmd.AddValue("iw", "initial window, segments", iw);
    cmd.AddValue("delayMod", "if > 0, sender i's access delay is 1 + (i mod delayMod) ms", delayMod);
    cmd.Parse(argc, argv);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1460));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(iw));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    // Buffers never limit the window: twice the largest BDP plus the queue (BulkSend keeps
    // the send buffer full, so a needlessly huge one only costs memory and time).
    double maxAccessMs = delayMod > 0 ? delayMod : Time(accessDelay).GetMilliSeconds();
    double rttMax = 2 * (Time(neckDelay).GetSeconds() + (maxAccessMs + Time(accessDelay).GetMilliSeconds()) / 1e3);
    double bdp = DataRate(neckBw).GetBitRate() / 8.0 * rttMax + neckQueue * 1500.0;
    uint32_t buffer = static_cast<uint32_t>(std::min(2 * bdp, 64.0 * (1 << 20)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(buffer));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(buffer));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));

    NodeContainer routers, senders, receivers;
    routers.Create(2);
    senders.Create(flows);
    receivers.Create(flows);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper neck;
    neck.SetDeviceAttribute("DataRate", StringValue(neckBw));
    neck.SetChannelAttribute("Delay", StringValue(neckDelay));
    // The bottleneck's waiting room is a FIFO queue disc of NECK_QUEUE - 1 packets in
    // front of a 1-packet device queue (the device takes the packet it serializes out of
    // its queue): NECK_QUEUE packets wait in all, as in tcplab and ns-2.
    neck.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, 1)));
    NetDeviceContainer neckDevices = neck.Install(routers.Get(0), routers.Get(1));

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessBw));
    access.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, 100000)));

    TrafficControlHelper noQdisc;
    Ipv4AddressHelper addresses;
    addresses.SetBase("10.0.0.0", "255.255.255.252");
    auto connect = [&](NetDeviceContainer devices) {
        // Assign installs the default qdisc; removing it leaves the device queue alone.
        Ipv4InterfaceContainer ifs = addresses.Assign(devices);
        noQdisc.Uninstall(devices);
        addresses.NewNetwork();
        return ifs;
    };
    connect(neckDevices);
    TrafficControlHelper fifo;
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize",
                          QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, std::max(neckQueue, 2u) - 1)));
    QueueDiscContainer neckQdiscs = fifo.Install(neckDevices);
    std::vector<Ipv4Address> receiverAddress(flows);
    for (uint32_t i = 0; i < flows; ++i) {
        std::string senderDelay = accessDelay;
        if (delayMod > 0) senderDelay = std::to_string(1 + (i % delayMod)) + "ms";
        access.SetChannelAttribute("Delay", StringValue(senderDelay));
        connect(access.Install(senders.Get(i), routers.Get(0)));
        access.SetChannelAttribute("Delay", StringValue(accessDelay));
        receiverAddress[i] = connect(access.Install(routers.Get(1), receivers.Get(i))).GetAddress(1);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    neckQdiscs.Get(0)->TraceConnectWithoutContext("Drop", MakeCallback(&OnDrop));
    Ptr<Queue<Packet>> device_queue = DynamicCast<PointToPointNetDevice>(neckDevices.Get(0))->GetQueue();
    device_queue->TraceConnectWithoutContext("Dequeue", MakeCallback(&OnDeparture));
    neckQdiscs.Get(0)->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueueLength));

    std::vector<Ptr<PacketSink>> sinks(flows);
    std::vector<double> starts(flows);
    for (uint32_t i = 0; i < flows; ++i) {
        uint16_t port = 5000 + i;
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(receivers.Get(i));
        s.Start(Seconds(0));
        sinks[i] = DynamicCast<PacketSink>(s.Get(0));
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(receiverAddress[i], port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(1460));
        ApplicationContainer b = bulk.Install(senders.Get(i));
        starts[i] = i * spacing;
        b.Start(Seconds(starts[i]));
    }

    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    for (uint32_t i = 0; i < flows; ++i) {
        std::printf("flow %u %.6f %llu\n", i, starts[i], (unsigned long long)sinks[i]->GetTotalRx());
    }
    std::printf("drops %llu\ndepartures %llu\nqueue_max %u\n", (unsigned long long)g_drops, (unsigned long long)g_departures, g_max_queue);
    Simulator::Destroy();
    return 0;
}
