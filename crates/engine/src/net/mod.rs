//! The network layer: packets, link directions, queues, loss, routing, fragmentation.

pub mod channel;
pub mod fragment;
pub mod host_backlog;
pub mod loss;
pub mod medium;
pub mod packet;
pub mod queue;
pub mod realtime;
pub mod routing;
