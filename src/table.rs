//! Tables as aligned plain text (widths counted in characters) and as
//! Markdown.

/// How a column's cells line up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Text: padded on the right.
    Left,
    /// Numbers: padded on the left.
    Right,
}

/// A table being built. Invariant: every row has one cell per column
/// (short rows are padded with empty cells, long rows are cut).
#[derive(Clone, Debug)]
pub struct Table {
    columns: Vec<(String, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column headers.
    #[must_use]
    pub fn new(columns: &[(&str, Align)]) -> Self {
        Self {
            columns: columns.iter().map(|(h, a)| ((*h).to_owned(), *a)).collect(),
            rows: Vec::new(),
        }
    }

    /// The column headers, in order.
    #[must_use]
    pub fn headers(&self) -> Vec<&str> {
        self.columns.iter().map(|(h, _)| h.as_str()).collect()
    }

    /// Appends a row.
    pub fn push(&mut self, mut row: Vec<String>) {
        row.resize(self.columns.len(), String::new());
        self.rows.push(row);
    }

    /// The table without the columns whose every cell is empty (a notes
    /// column nobody needed), header included.
    #[must_use]
    pub fn without_empty_columns(self) -> Self {
        let keep: Vec<bool> = (0..self.columns.len())
            .map(|i| self.rows.iter().any(|r| !r[i].is_empty()))
            .collect();
        Self {
            columns: kept(self.columns, &keep),
            rows: self.rows.into_iter().map(|r| kept(r, &keep)).collect(),
        }
    }

    /// The table, each line prefixed with `indent`, with a dashed rule
    /// under the header (as critcmp prints), columns two spaces apart,
    /// no trailing spaces, ending in a newline.
    #[must_use]
    pub fn render(&self, indent: &str) -> String {
        let width = |s: &str| s.chars().count();
        let mut widths: Vec<usize> = self.columns.iter().map(|(h, _)| width(h)).collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(width(cell));
            }
        }
        // `{:w$}` pads by characters, as `width` counts them.
        let line = |cells: &[String]| {
            let cells: Vec<String> = (cells.iter().zip(&widths).zip(&self.columns))
                .map(|((cell, &w), (_, align))| match align {
                    Align::Left => format!("{cell:<w$}"),
                    Align::Right => format!("{cell:>w$}"),
                })
                .collect();
            let text = format!("{indent}{}", cells.join("  "));
            format!("{}\n", text.trim_end())
        };
        let header: Vec<String> = self.columns.iter().map(|(h, _)| h.clone()).collect();
        let rule: Vec<String> = header.iter().map(|h| "-".repeat(width(h))).collect();
        [header, rule]
            .iter()
            .chain(&self.rows)
            .map(|r| line(r))
            .collect()
    }

    /// The table as GitHub Markdown (header, `---` row, cells escaped for
    /// `|`).
    #[must_use]
    pub fn markdown(&self) -> String {
        let esc = |s: &str| s.replace('|', "\\|");
        let mut out = String::from("|");
        for (h, _) in &self.columns {
            out.push_str(&format!(" {} |", esc(h)));
        }
        out.push_str("\n|");
        for (_, a) in &self.columns {
            out.push_str(match a {
                Align::Left => "---|",
                Align::Right => "---:|",
            });
        }
        out.push('\n');
        for row in &self.rows {
            out.push('|');
            for cell in row {
                out.push_str(&format!(" {} |", esc(cell)));
            }
            out.push('\n');
        }
        out
    }
}

/// The `items` whose `keep` flag is set.
fn kept<T>(items: Vec<T>, keep: &[bool]) -> Vec<T> {
    items
        .into_iter()
        .zip(keep)
        .filter_map(|(item, &k)| k.then_some(item))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_by_characters() {
        let mut t = Table::new(&[("name", Align::Left), ("value", Align::Right)]);
        t.push(vec!["a".into(), "1.00".into()]);
        t.push(vec!["µµµµµµ".into(), "12.5".into()]);
        t.push(vec!["short".into()]);
        assert_eq!(
            t.render("  "),
            "  name    value\n  ----    -----\n  a        1.00\n  µµµµµµ   12.5\n  short\n"
        );
    }

    #[test]
    fn empty_columns_go() {
        let mut t = Table::new(&[("a", Align::Left), ("note", Align::Left)]);
        t.push(vec!["x".into()]);
        assert_eq!(
            t.clone().without_empty_columns().markdown(),
            "| a |\n|---|\n| x |\n"
        );
        t.push(vec!["y".into(), "n".into()]);
        assert_eq!(t.without_empty_columns().columns.len(), 2);
    }

    #[test]
    fn markdown_escapes_pipes() {
        let mut t = Table::new(&[("a|b", Align::Left), ("n", Align::Right)]);
        t.push(vec!["x".into(), "1".into()]);
        assert_eq!(t.markdown(), "| a\\|b | n |\n|---|---:|\n| x | 1 |\n");
    }
}
