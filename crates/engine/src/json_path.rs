//! Where in a JSON text a position lies, as the path of keys and indices leading to it
//! (`flows[0].transport.mss_bytes`): a type or range error serde reports by line and
//! column is restated at the value it concerns, which the front end maps to the
//! scenario's own file and key.

/// One open container while the text is scanned.
enum Open {
    /// An object: the key of the member being read, whether a key comes next, and the
    /// members read so far (key, and where its value starts).
    Object {
        key: Option<String>,
        key_next: bool,
        members: Vec<(Option<String>, usize)>,
    },
    /// An array: the index of the element being read.
    Array { index: usize },
}

/// The byte offset of serde_json's 1-based `line` and `column` in `text`.
pub fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (line_start + column.saturating_sub(1)).min(text.len())
}

/// The containers open at byte `offset` of the JSON `text`, outermost first.
fn open_at(text: &str, offset: usize) -> Vec<Open> {
    let bytes = text.as_bytes();
    let mut open: Vec<Open> = Vec::new();
    let mut i = 0;
    while i < offset.min(bytes.len()) {
        match bytes[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if let Some(Open::Object { key, key_next, .. }) = open.last_mut() {
                    if *key_next {
                        let quoted = text.get(start..=i.min(bytes.len() - 1)).unwrap_or("");
                        *key = serde_json::from_str(quoted).ok();
                        *key_next = false;
                    }
                }
            }
            b':' => {
                if let Some(Open::Object { key, members, .. }) = open.last_mut() {
                    members.push((key.clone(), i + 1));
                }
            }
            b'{' => open.push(Open::Object {
                key: None,
                key_next: true,
                members: Vec::new(),
            }),
            b'[' => open.push(Open::Array { index: 0 }),
            b'}' | b']' => {
                open.pop();
            }
            b',' => match open.last_mut() {
                Some(Open::Array { index }) => *index += 1,
                Some(Open::Object { key_next, .. }) => *key_next = true,
                None => {}
            },
            _ => {}
        }
        i += 1;
    }
    open
}

/// The path of `open`'s containers: object keys joined by dots, array indices in
/// brackets; empty at the top level.
fn path_of(open: &[Open]) -> String {
    let mut path = String::new();
    for step in open {
        match step {
            Open::Object { key: Some(key), .. } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Open::Array { index } => path.push_str(&format!("[{index}]")),
            Open::Object { key: None, .. } => {}
        }
    }
    path
}

/// The path to the value in progress at byte `offset` of the JSON `text`.
pub fn path_at(text: &str, offset: usize) -> String {
    path_of(&open_at(text, offset))
}

/// The value serde's message quotes as the one it could not take: the token between
/// backticks (`integer `5000000000`, expected u32`, `unknown variant `qqq``) or the
/// words of a string (`string "x", expected u32`).
fn quoted_value(detail: &str) -> Option<&str> {
    if let Some((_, rest)) = detail.split_once('`') {
        return rest.split_once('`').map(|(token, _)| token);
    }
    let (_, rest) = detail.split_once("string \"")?;
    rest.split_once("\", expected").map(|(words, _)| words)
}

/// Where a reader's error at byte `offset` of `text` lies, `detail` being serde's
/// message. Usually the value in progress there ([`path_at`]); but serde reads an
/// internally tagged table (a transport, an application, a queue, a loss model) whole
/// before its variant, and reports a bad member at the table's end: there the member
/// whose value is the one the message quotes is named, when exactly one is.
pub fn locate(text: &str, offset: usize, detail: &str) -> String {
    let mut open = open_at(text, offset);
    let at_table_end = text
        .get(offset..)
        .is_some_and(|rest| rest.trim_start().starts_with('}'));
    let Some(quoted) = quoted_value(detail).filter(|_| at_table_end) else {
        return path_of(&open);
    };
    let Some(Open::Object { members, key, .. }) = open.last_mut() else {
        return path_of(&open);
    };
    let value_of = |index: usize| {
        let start = members[index].1;
        let end = members
            .get(index + 1)
            .map_or(offset, |next| text[..next.1].rfind(',').unwrap_or(next.1));
        text[start..end.max(start)].trim()
    };
    // A number or a boolean is quoted as the JSON holds it; a string by its words.
    let is_quoted = |token: &str| {
        token == quoted || serde_json::from_str::<String>(token).is_ok_and(|word| word == quoted)
    };
    let matching: Vec<usize> = (0..members.len())
        .filter(|&i| is_quoted(value_of(i)))
        .collect();
    if let [only] = matching[..] {
        *key = members[only].0.clone();
    }
    path_of(&open)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every scalar of a document, found by the end of its token (where serde reports
    /// an error), leads back to its own keys and indices — strings with escaped quotes
    /// and brackets inside them included.
    #[test]
    fn every_scalar_leads_back_to_its_path() {
        let text = r#"{"a": [1, {"b": "x,\"]y", "c": [true, null]}], "d": {"e": 2.5}, "f": "]"}"#;
        for (token, path) in [
            ("1", "a[0]"),
            (r#""x,\"]y""#, "a[1].b"),
            ("true", "a[1].c[0]"),
            ("null", "a[1].c[1]"),
            ("2.5", "d.e"),
            (r#""]""#, "f"),
        ] {
            let end = text.find(token).unwrap() + token.len();
            assert_eq!(path_at(text, end), path, "{token}");
        }
    }

    #[test]
    fn a_line_and_column_are_a_byte_offset() {
        let text = "{\n  \"a\": 1,\n  \"b\": x\n}";
        let offset = offset_of(text, 3, 9);
        assert_eq!(&text[offset - 1..offset], "x");
        assert_eq!(path_at(text, offset), "b");
    }

    /// A bad member of an internally tagged table is named by the value serde quotes,
    /// wherever it stands in the table; a value found twice leaves the table's end.
    #[test]
    fn a_tagged_tables_bad_member_is_found_by_its_value() {
        let text = r#"{"app": {"type": "on_off", "rate_bps": 5, "payload_bytes": 5000000000, "on_ns": 1, "tail": "a,b"}}"#;
        let end = text.rfind('}').unwrap() - 1;
        let detail = "invalid value: integer `5000000000`, expected u32";
        assert_eq!(locate(text, end, detail), "app.payload_bytes");
        assert_eq!(
            locate(text, end, "invalid value: integer `1`, expected u32"),
            "app.on_ns"
        );
        assert_eq!(
            locate(text, end, "invalid type: string \"a,b\", expected u32"),
            "app.tail"
        );
        let twice = r#"{"app": {"type": "cbr", "rate_bps": 7, "payload_bytes": 7}}"#;
        let end = twice.rfind('}').unwrap() - 1;
        assert_eq!(
            locate(twice, end, "integer `7`, expected u32"),
            "app.payload_bytes"
        );
        let words = r#"{"t": {"type": "tcp", "recovery": "qqq", "sack": true}}"#;
        let end = words.rfind('}').unwrap() - 1;
        assert_eq!(
            locate(words, end, "unknown variant `qqq`, expected one of `reno`"),
            "t.recovery"
        );
        // Not at a table's end: the value in progress, as path_at says.
        assert_eq!(
            locate(text, text.find("5,").unwrap() + 1, detail),
            "app.rate_bps"
        );
    }

    /// What the engine says of a value of the wrong type: where, then what.
    #[test]
    fn the_engine_names_the_field_of_a_bad_value() {
        let err =
            crate::config::ScenarioConfig::from_json(r#"{"simulation": {"duration_ns": -3}}"#)
                .unwrap_err();
        assert!(
            err.to_string()
                .contains("at simulation.duration_ns: invalid value: integer `-3`"),
            "{err}"
        );
    }
}
