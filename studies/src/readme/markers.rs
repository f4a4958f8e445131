//! Generated blocks in a Markdown file: text between
//! `<!-- fc-lab readme: NAME -->` and `<!-- /fc-lab readme -->` belongs to
//! `fc-studies readme`, which rewrites it (or, with `--check`, says which
//! blocks differ). Everything outside the markers is left byte for byte.

use std::collections::BTreeMap;

/// Opening marker of block `name`.
#[must_use]
pub fn open(name: &str) -> String {
    format!("<!-- fc-lab readme: {name} -->")
}

/// Closing marker of every block.
pub const CLOSE: &str = "<!-- /fc-lab readme -->";

/// A file split at its markers.
///
/// Invariant: joining the parts gives the file back.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    /// Text outside any block.
    Text(String),
    /// A block: its name and its body (between the markers' lines).
    Block(String, String),
}

/// What went wrong reading the markers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkerError(pub String);

fn split(text: &str) -> Result<Vec<Part>, MarkerError> {
    const PREFIX: &str = "<!-- fc-lab readme: ";
    let mut parts = Vec::new();
    let mut rest = text;
    let line_no = |at: &str| text[..text.len() - at.len()].lines().count() + 1;
    while let Some(start) = rest.find(PREFIX) {
        let after = &rest[start + PREFIX.len()..];
        let Some(end) = after.find(" -->") else {
            return Err(MarkerError(format!(
                "line {}: unclosed marker",
                line_no(&rest[start..])
            )));
        };
        let name = after[..end].trim().to_owned();
        let open_end = start + PREFIX.len() + end + " -->".len();
        // The body starts after the marker's line.
        let body_start = rest[open_end..]
            .find('\n')
            .map_or(rest.len(), |n| open_end + n + 1);
        let Some(close) = rest[body_start..].find(CLOSE) else {
            return Err(MarkerError(format!(
                "line {}: block {name:?} has no {CLOSE}",
                line_no(&rest[start..])
            )));
        };
        let body = &rest[body_start..body_start + close];
        if body.contains(PREFIX) {
            return Err(MarkerError(format!(
                "block {name:?} contains another block"
            )));
        }
        parts.push(Part::Text(rest[..body_start].to_owned()));
        parts.push(Part::Block(name, body.to_owned()));
        rest = &rest[body_start + close..];
    }
    parts.push(Part::Text(rest.to_owned()));
    Ok(parts)
}

/// The names of the blocks in `text`, in order.
///
/// # Errors
/// [`MarkerError`] for a marker without its end.
pub fn block_names(text: &str) -> Result<Vec<String>, MarkerError> {
    Ok(split(text)?
        .into_iter()
        .filter_map(|p| match p {
            Part::Block(name, _) => Some(name),
            Part::Text(_) => None,
        })
        .collect())
}

/// `text` with every block's body replaced by `blocks[name]` (each ending
/// in a newline), and the names of the blocks whose body changed.
///
/// # Errors
/// [`MarkerError`] for a marker without its end, or a block `blocks` has
/// no text for.
pub fn fill(
    text: &str,
    blocks: &BTreeMap<String, String>,
) -> Result<(String, Vec<String>), MarkerError> {
    let mut out = String::with_capacity(text.len());
    let mut changed = Vec::new();
    for part in split(text)? {
        match part {
            Part::Text(t) => out.push_str(&t),
            Part::Block(name, old) => {
                let Some(new) = blocks.get(&name) else {
                    return Err(MarkerError(format!(
                        "block {name:?} is not one fc-studies readme generates ({})",
                        blocks.keys().cloned().collect::<Vec<_>>().join(", ")
                    )));
                };
                let mut new = new.clone();
                if !new.ends_with('\n') {
                    new.push('\n');
                }
                if new != old {
                    changed.push(name.clone());
                }
                out.push_str(&new);
            }
        }
    }
    Ok((out, changed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_replaced_and_the_rest_kept() {
        let text = "# T\n\nintro\n<!-- fc-lab readme: a -->\nold a\n<!-- /fc-lab readme -->\nmid\n\
                    <!-- fc-lab readme: b -->\n<!-- /fc-lab readme -->\nend\n";
        assert_eq!(block_names(text).unwrap(), ["a", "b"]);
        let mut blocks = BTreeMap::new();
        blocks.insert("a".to_owned(), "old a\n".to_owned());
        blocks.insert("b".to_owned(), "new b".to_owned());
        let (out, changed) = fill(text, &blocks).unwrap();
        assert_eq!(changed, ["b"]);
        assert_eq!(
            out,
            "# T\n\nintro\n<!-- fc-lab readme: a -->\nold a\n<!-- /fc-lab readme -->\nmid\n\
             <!-- fc-lab readme: b -->\nnew b\n<!-- /fc-lab readme -->\nend\n"
        );
        // Filling again changes nothing.
        assert_eq!(fill(&out, &blocks).unwrap(), (out.clone(), vec![]));
    }

    #[test]
    fn broken_markers_are_errors() {
        assert!(split("<!-- fc-lab readme: a -->\nno end").is_err());
        assert!(
            fill(
                "<!-- fc-lab readme: zz -->\n<!-- /fc-lab readme -->\n",
                &BTreeMap::new()
            )
            .is_err()
        );
    }
}
