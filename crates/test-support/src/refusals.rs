//! The README's table of refusals ("What oxir refuses"): each row's first column lists, as
//! code spans, how an `unsupported:` message may begin (`{…}` matches one word: a name or
//! a number). Tests check every refusal they provoke or meet in the corpus against it, so
//! the README names every reason oxir refuses a shader naga accepts.

use std::sync::OnceLock;

/// The message beginnings the README lists, in table order.
pub fn listed_refusals() -> &'static [String] {
    static LISTED: OnceLock<Vec<String>> = OnceLock::new();
    LISTED.get_or_init(|| {
        let readme = std::fs::read_to_string(crate::repo_root().join("README.md"))
            .expect("README.md at the repository root");
        parse_table(&readme)
    })
}

/// Whether `message` (with or without its `unsupported: ` prefix and location) begins as a
/// README row says; `Err` names the message and the listed beginnings.
pub fn check_listed(message: &str) -> Result<(), String> {
    let what = message
        .split_once("unsupported: ")
        .map_or(message, |(_, rest)| rest);
    if listed_refusals().iter().any(|p| begins_with(what, p)) {
        return Ok(());
    }
    Err(format!(
        "the refusal `{what}` is not in the README's \"What oxir refuses\" table ({} rows' \
         beginnings: {:?})",
        listed_refusals().len(),
        listed_refusals()
    ))
}

fn parse_table(readme: &str) -> Vec<String> {
    let Some((_, section)) = readme.split_once("## What oxir refuses") else {
        panic!("README.md has no \"## What oxir refuses\" section");
    };
    let section = section.split("\n## ").next().unwrap_or("");
    let mut out = Vec::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let first = line[1..].split(" | ").next().unwrap_or("");
        out.extend(code_spans(first));
    }
    assert!(!out.is_empty(), "the README's refusal table has no rows");
    out
}

/// The code spans of one cell: `` `x` `` and ``` `` `x` `` ```.
fn code_spans(mut cell: &str) -> Vec<String> {
    let mut out = Vec::new();
    while let Some(start) = cell.find('`') {
        let rest = &cell[start..];
        let (open, close) = if rest.starts_with("`` ") {
            ("`` ", " ``")
        } else {
            ("`", "`")
        };
        let body = &rest[open.len()..];
        let Some(end) = body.find(close) else { break };
        out.push(body[..end].to_string());
        cell = &body[end + close.len()..];
    }
    out
}

/// Whether `text` begins with `pattern`, where each `{…}` in it matches one or more
/// characters other than a space.
fn begins_with(text: &str, pattern: &str) -> bool {
    let mut parts = pattern.split("{…}");
    let Some(first) = parts.next() else {
        return true;
    };
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    for part in parts {
        let word = rest.find(' ').unwrap_or(rest.len());
        // The wildcard takes at least one character and stops where `part` begins.
        let Some(at) = (1..=rest.len())
            .filter(|&i| rest.is_char_boundary(i) && i <= word.max(1))
            .find(|&i| rest[i..].starts_with(part))
        else {
            return false;
        };
        rest = &rest[at + part.len()..];
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_as_documented() {
        assert!(begins_with("64-bit scalar type", "{…}-bit scalar type"));
        assert!(begins_with(
            "task shader stage (in `main`)",
            "{…} shader stage"
        ));
        assert!(!begins_with("shader stage", "{…} shader stage"));
        assert!(!begins_with("ray querying", "ray tracing"));
        assert!(begins_with(
            "binding array at byte offset 388",
            "binding array"
        ));
        assert!(!begins_with(
            "a very long name shader stage",
            "{…} shader stage"
        ));
    }

    #[test]
    fn the_readme_table_parses() {
        let listed = listed_refusals();
        assert!(listed.iter().any(|p| p == "binding array"), "{listed:?}");
        assert!(
            listed.iter().any(|p| p == "`@early_depth_test`"),
            "{listed:?}"
        );
        assert!(check_listed("x.wgsl:1:2: error: unsupported: binding array").is_ok());
        assert!(check_listed("unsupported: something new").is_err());
    }

    #[test]
    fn code_spans_of_both_forms() {
        assert_eq!(
            code_spans("`a`, `` `b` ``, `c d`"),
            vec!["a".to_string(), "`b`".into(), "c d".into()]
        );
    }
}
