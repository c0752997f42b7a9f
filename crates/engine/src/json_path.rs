//! Where in a JSON text a position lies, as the path of keys and indices leading to it
//! (`flows[0].transport.mss_bytes`): a type or range error serde reports by line and
//! column is restated at the value it concerns, which the front end maps to the
//! scenario's own file and key.

/// One open container while the text is scanned.
enum Open {
    /// An object: the key of the member being read, and whether a key comes next.
    Object { key: Option<String>, key_next: bool },
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

/// The path to the value in progress at byte `offset` of the JSON `text`: object keys
/// joined by dots, array indices in brackets; empty at the top level.
pub fn path_at(text: &str, offset: usize) -> String {
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
                if let Some(Open::Object { key, key_next }) = open.last_mut() {
                    if *key_next {
                        let quoted = text.get(start..=i.min(bytes.len() - 1)).unwrap_or("");
                        *key = serde_json::from_str(quoted).ok();
                        *key_next = false;
                    }
                }
            }
            b'{' => open.push(Open::Object {
                key: None,
                key_next: true,
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
    let mut path = String::new();
    for step in &open {
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
