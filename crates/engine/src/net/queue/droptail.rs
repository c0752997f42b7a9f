//! DropTail: admit while there is room, drop arrivals when full.

use super::has_room;
use crate::config::Amount;
use crate::metrics::DropCause;

/// Tail-drop admission with a limit in packets or bytes.
#[derive(Debug, Clone)]
pub struct DropTail {
    limit: Amount,
}

impl DropTail {
    /// A tail-drop policy with the given capacity.
    pub fn new(limit: Amount) -> Self {
        DropTail { limit }
    }

    /// Admits a packet of `size_bytes` into a queue currently holding the given amounts.
    pub fn admit(
        &self,
        len_packets: u64,
        len_bytes: u64,
        size_bytes: u32,
    ) -> Result<(), DropCause> {
        if has_room(self.limit, len_packets, len_bytes, size_bytes) {
            Ok(())
        } else {
            Err(DropCause::Queue)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SizeUnit;

    #[test]
    fn packet_limit_counts_waiting_packets() {
        let dt = DropTail::new(Amount {
            value: 2,
            unit: SizeUnit::Packets,
        });
        assert_eq!(dt.admit(1, 3000, 1500), Ok(()));
        assert_eq!(dt.admit(2, 3000, 1500), Err(DropCause::Queue));
    }

    #[test]
    fn byte_limit_admits_only_what_fits() {
        let dt = DropTail::new(Amount {
            value: 3000,
            unit: SizeUnit::Bytes,
        });
        assert_eq!(dt.admit(1, 1500, 1500), Ok(()));
        assert_eq!(dt.admit(1, 1501, 1500), Err(DropCause::Queue));
    }
}
