//! A run's time series as long-format ("tidy") columns: one row per (flow, bin),
//! (link direction, bin) or (flow, delay bucket), one contiguous array per metric.
//!
//! This is how series leave the engine for the Python package: a column crosses as
//! one buffer (1–8 bytes per value) instead of a JSON list of numbers (~30 bytes of
//! text, then a Python object per number). Rows are entity-major in the order of
//! [`RunResults::flows`] / [`RunResults::links`]: the row of entity `e` and bin `b`
//! is `e * bins + b`, so entity ids and bin times need not be stored per row.

use crate::metrics::BinCounts;
use crate::results::RunResults;

/// One column's values, as the per-entity pieces it is the concatenation of (kept
/// apart so that a reader can copy them into its own buffer one piece at a time,
/// freeing each: the series never exist twice).
///
/// Counts are stored in the narrowest unsigned type that holds the column's largest
/// value (lossless): most per-bin counts — drops, queue maxima, packets per bin — fit
/// in one or two bytes, which keeps a series cell within its memory budget
/// (docs/results.md, "Memory").
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    /// Counts below 2^8.
    U8(Vec<Vec<u8>>),
    /// Counts below 2^16.
    U16(Vec<Vec<u16>>),
    /// Counts below 2^32.
    U32(Vec<Vec<u32>>),
    /// Other counts (packets, bytes).
    U64(Vec<Vec<u64>>),
    /// Per-bin samples of measured quantities, single precision as the engine keeps
    /// them; NaN where there is no value (e.g. a window before the sender starts, an
    /// algorithm variable of a flow that does not have it).
    F32(Vec<Vec<f32>>),
    /// Other measured quantities.
    F64(Vec<Vec<f64>>),
}

/// Named columns of equal length.
pub type Table = Vec<(String, Column)>;

/// The three series tables of a run.
#[derive(Debug, Clone, Default)]
pub struct SeriesTables {
    /// Per (flow, bin): `delivered_bytes`, `received_bytes`, `sent_packets`, `dropped_packets`,
    /// `cwnd_bytes`, `ssthresh_bytes`, `srtt_ms`, then `cc_<name>` for every algorithm
    /// variable any flow exposes.
    pub flow: Table,
    /// Per (link direction, bin): `tx_bytes`, `drops`, `queue_mean_packets`,
    /// `queue_mean_bytes`, `queue_max_packets`, `queue_max_bytes`.
    pub link: Table,
    /// Per non-empty delay bucket: `flow_index` (into the flows), `delay_ms` (bucket
    /// upper bound), `packets`.
    pub delay: Table,
}

/// `(name, column)` of field `$field` of every item of `$items`, each item's array
/// moved out: counts narrowed, samples as they are (absent ones as `$bins` NaNs).
macro_rules! take_column {
    ($items:ident . $field:ident, counts) => {
        (
            stringify!($field).to_string(),
            narrow_counts(
                $items
                    .iter_mut()
                    .map(|x| std::mem::take(&mut x.$field))
                    .collect(),
            ),
        )
    };
    ($items:ident . $field:ident, samples) => {
        (
            stringify!($field).to_string(),
            Column::F32(
                $items
                    .iter_mut()
                    .map(|x| std::mem::take(&mut x.$field))
                    .collect(),
            ),
        )
    };
    ($items:ident . $field:ident, samples_or_nan($bins:expr)) => {
        (
            stringify!($field).to_string(),
            Column::F32(
                $items
                    .iter_mut()
                    .map(|x| x.$field.take().unwrap_or_else(|| vec![f32::NAN; $bins]))
                    .collect(),
            ),
        )
    };
}

impl RunResults {
    /// Moves the series out of `self` into long-format columns; `self` keeps the
    /// summaries. Nothing is copied except to narrow counts (part by part).
    pub fn take_series_tables(&mut self) -> SeriesTables {
        let bins = self.bin_start_s.len();
        let mut flows = std::mem::take(&mut self.flow_series);
        let mut flow: Table = vec![
            take_column!(flows.delivered_bytes, counts),
            take_column!(flows.received_bytes, counts),
            take_column!(flows.sent_packets, counts),
            take_column!(flows.dropped_packets, counts),
            take_column!(flows.cwnd_bytes, samples_or_nan(bins)),
            take_column!(flows.ssthresh_bytes, samples_or_nan(bins)),
            take_column!(flows.srtt_ms, samples_or_nan(bins)),
        ];
        // Flows with different algorithms expose different variables: one column per
        // name any flow has, NaN in the rows of the others.
        let mut names: Vec<String> = Vec::new();
        for (name, _) in flows.iter().flat_map(|f| &f.cc_state) {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        for name in names {
            let parts = flows
                .iter_mut()
                .map(|f| {
                    f.cc_state
                        .iter_mut()
                        .find(|(n, _)| *n == name)
                        .map(|(_, v)| std::mem::take(v))
                        .unwrap_or_else(|| vec![f32::NAN; bins])
                })
                .collect();
            flow.push((format!("cc_{name}"), Column::F32(parts)));
        }

        let mut links = std::mem::take(&mut self.link_series);
        let link: Table = vec![
            take_column!(links.tx_bytes, counts),
            take_column!(links.drops, counts),
            take_column!(links.queue_mean_packets, samples),
            take_column!(links.queue_mean_bytes, samples),
            take_column!(links.queue_max_packets, counts),
            take_column!(links.queue_max_bytes, counts),
        ];

        let histograms = std::mem::take(&mut self.delay_histograms);
        let (mut index, mut upper, mut packets) = (Vec::new(), Vec::new(), Vec::new());
        for (f, h) in histograms.into_iter().enumerate() {
            for (hi, count) in h.buckets {
                index.push(f as u64);
                upper.push(hi);
                packets.push(count);
            }
        }
        let delay = vec![
            ("flow_index".into(), narrow_counts(vec![index.into()])),
            ("delay_ms".into(), Column::F64(vec![upper])),
            ("packets".into(), narrow_counts(vec![packets.into()])),
        ];
        SeriesTables { flow, link, delay }
    }
}

/// The per-entity series `parts` in one width, the narrowest that holds them all
/// exactly; a part already at that width moves, others are re-stored one at a time.
fn narrow_counts(parts: Vec<BinCounts>) -> Column {
    let max = parts.iter().map(BinCounts::max).max().unwrap_or(0);
    let parts = parts.into_iter().map(|part| part.stored_for(max));
    macro_rules! column_of {
        ($variant:ident) => {
            Column::$variant(
                parts
                    .map(|part| match part {
                        BinCounts::$variant(values) => values,
                        // `stored_for(max)` gives every part the same width.
                        other => other.iter().map(|v| v as _).collect(),
                    })
                    .collect(),
            )
        };
    }
    match BinCounts::zeros(0).stored_for(max) {
        BinCounts::U8(_) => column_of!(U8),
        BinCounts::U16(_) => column_of!(U16),
        BinCounts::U32(_) => column_of!(U32),
        BinCounts::U64(_) => column_of!(U64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_take_the_narrowest_type_that_holds_their_largest_value() {
        let cases: [(u64, &str); 8] = [
            (0, "u8"),
            (255, "u8"),
            (256, "u16"),
            (65_535, "u16"),
            (65_536, "u32"),
            (4_294_967_295, "u32"),
            (4_294_967_296, "u64"),
            (u64::MAX, "u64"),
        ];
        for (max, kind) in cases {
            let column = narrow_counts(vec![BinCounts::zeros(2), vec![max, 7].into()]);
            let got = match &column {
                Column::U8(_) => "u8",
                Column::U16(_) => "u16",
                Column::U32(_) => "u32",
                Column::U64(_) => "u64",
                Column::F32(_) | Column::F64(_) => "float",
            };
            assert_eq!(got, kind, "max {max}");
            let values: Vec<u64> = match column {
                Column::U8(p) => p.concat().into_iter().map(u64::from).collect(),
                Column::U16(p) => p.concat().into_iter().map(u64::from).collect(),
                Column::U32(p) => p.concat().into_iter().map(u64::from).collect(),
                Column::U64(p) => p.concat(),
                Column::F32(_) | Column::F64(_) => unreachable!(),
            };
            assert_eq!(values, vec![0, 0, max, 7], "max {max}");
        }
    }
}
