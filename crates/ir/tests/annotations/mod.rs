//! Error annotations in text fixtures, and the matcher that compares them with the errors
//! the parser or verifier reported.
//!
//! An annotation is a comment `; error: KIND TEXT` on the line an error points to: `KIND`
//! is the verifier error kind's name (`ErrorKind::name`, e.g. `dominance-violation`) or
//! `parse` for a parse error, and `TEXT` (not empty) must occur in the error's message. A
//! line may carry several annotations (`; error: A x ; error: B y`).
//!
//! The reported errors must equal the annotations as a set: every annotation is matched by
//! one error of its kind on its line whose message contains its text, and every error by
//! one annotation. Anything left over on either side is a mismatch.

use std::fmt;

/// What introduces an annotation.
pub const MARKER: &str = "; error:";

/// One `; error: KIND TEXT` annotation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    pub line: u32,
    pub kind: String,
    pub text: String,
}

/// One error as reported, with the line its location maps to (`None`: no line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Actual {
    pub line: Option<u32>,
    pub kind: String,
    pub message: String,
}

/// The annotations and errors that found no partner.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mismatch {
    pub missing: Vec<Expected>,
    pub unexpected: Vec<Actual>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for e in &self.missing {
            writeln!(
                f,
                "  line {}: expected {} error containing `{}`, not reported",
                e.line, e.kind, e.text
            )?;
        }
        for a in &self.unexpected {
            let line = a
                .line
                .map_or("no line".to_string(), |l| format!("line {l}"));
            writeln!(f, "  {line}: unexpected {} error: {}", a.kind, a.message)?;
        }
        Ok(())
    }
}

/// The annotations of `text`, or a description of a malformed one.
pub fn parse_annotations(text: &str) -> Result<Vec<Expected>, String> {
    let mut annotations = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line_number = index as u32 + 1;
        let mut pieces = line.split(MARKER);
        pieces.next(); // the code before the first annotation
        for piece in pieces {
            let piece = piece.trim();
            let (kind, rest) = piece.split_once(char::is_whitespace).unwrap_or((piece, ""));
            let text = rest.trim();
            if kind.is_empty() || text.is_empty() {
                return Err(format!(
                    "line {line_number}: an annotation needs a kind and a message text: `{line}`"
                ));
            }
            annotations.push(Expected {
                line: line_number,
                kind: kind.to_string(),
                text: text.to_string(),
            });
        }
    }
    Ok(annotations)
}

/// `line` without its annotations (and the blanks before them).
pub fn strip_annotations(line: &str) -> &str {
    match line.find(MARKER) {
        Some(at) => line[..at].trim_end(),
        None => line,
    }
}

fn matches(expected: &Expected, actual: &Actual) -> bool {
    actual.line == Some(expected.line)
        && actual.kind == expected.kind
        && actual.message.contains(&expected.text)
}

/// Pairs annotations with errors one to one (a maximum bipartite matching, so that the
/// order of annotations on a line does not matter); `Ok` when nothing is left over.
pub fn check(expected: &[Expected], actual: &[Actual]) -> Result<(), Mismatch> {
    // partner[a] = the annotation matched to actual error `a`.
    let mut partner: Vec<Option<usize>> = vec![None; actual.len()];
    for e in 0..expected.len() {
        let mut visited = vec![false; actual.len()];
        augment(e, expected, actual, &mut partner, &mut visited);
    }
    let matched: Vec<usize> = partner.iter().flatten().copied().collect();
    let mismatch = Mismatch {
        missing: (0..expected.len())
            .filter(|e| !matched.contains(e))
            .map(|e| expected[e].clone())
            .collect(),
        unexpected: (0..actual.len())
            .filter(|&a| partner[a].is_none())
            .map(|a| actual[a].clone())
            .collect(),
    };
    if mismatch == Mismatch::default() {
        Ok(())
    } else {
        Err(mismatch)
    }
}

/// Kuhn's augmenting path step: tries to match annotation `e`, re-matching others.
fn augment(
    e: usize,
    expected: &[Expected],
    actual: &[Actual],
    partner: &mut [Option<usize>],
    visited: &mut [bool],
) -> bool {
    for a in 0..actual.len() {
        if visited[a] || !matches(&expected[e], &actual[a]) {
            continue;
        }
        visited[a] = true;
        let free = match partner[a] {
            None => true,
            Some(other) => augment(other, expected, actual, partner, visited),
        };
        if free {
            partner[a] = Some(e);
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = "\
callable @f() {
block0:
    v0: u32 = add c0, c1 ; error: type-mismatch operand 1 ; error: type-mismatch operand 0
    return
}
";

    fn actual(line: u32, kind: &str, message: &str) -> Actual {
        Actual {
            line: Some(line),
            kind: kind.into(),
            message: message.into(),
        }
    }

    fn right_errors() -> Vec<Actual> {
        vec![
            actual(3, "type-mismatch", "operand 0 is f32"),
            actual(3, "type-mismatch", "operand 1 is bool"),
        ]
    }

    #[test]
    fn annotations_are_read_with_their_lines() {
        let annotations = parse_annotations(FIXTURE).unwrap();
        assert_eq!(annotations.len(), 2);
        assert!(annotations.iter().all(|a| a.line == 3));
        assert_eq!(annotations[0].kind, "type-mismatch");
        assert_eq!(annotations[0].text, "operand 1");
        assert_eq!(annotations[1].text, "operand 0");
        assert_eq!(
            strip_annotations(FIXTURE.lines().nth(2).unwrap()),
            "    v0: u32 = add c0, c1"
        );
    }

    #[test]
    fn annotation_without_text_is_refused() {
        assert!(parse_annotations("return ; error: type-mismatch\n").is_err());
        assert!(parse_annotations("return ; error:\n").is_err());
    }

    #[test]
    fn the_reported_errors_match() {
        let annotations = parse_annotations(FIXTURE).unwrap();
        assert_eq!(check(&annotations, &right_errors()), Ok(()));
    }

    /// Each way an error can differ from its annotation is a mismatch that names both.
    #[test]
    fn wrong_kind_line_or_text_is_a_mismatch() {
        let annotations = parse_annotations(FIXTURE).unwrap();
        let wrong_kind = actual(3, "wrong-arity", "operand 1 is bool");
        let wrong_line = actual(4, "type-mismatch", "operand 1 is bool");
        let wrong_text = actual(3, "type-mismatch", "operand one is bool");
        let no_line = Actual {
            line: None,
            ..actual(3, "type-mismatch", "operand 1 is bool")
        };
        for wrong in [wrong_kind, wrong_line, wrong_text, no_line] {
            let reported = vec![right_errors()[0].clone(), wrong.clone()];
            let mismatch = check(&annotations, &reported).unwrap_err();
            assert_eq!(mismatch.missing, vec![annotations[0].clone()]);
            assert_eq!(mismatch.unexpected, vec![wrong]);
            let text = mismatch.to_string();
            assert!(text.contains("expected type-mismatch error containing `operand 1`"));
            assert!(text.contains("unexpected"), "{text}");
        }
    }

    #[test]
    fn missing_and_extra_errors_are_mismatches() {
        let annotations = parse_annotations(FIXTURE).unwrap();
        let one_missing = check(&annotations, &right_errors()[..1]).unwrap_err();
        assert_eq!(one_missing.missing.len(), 1);
        assert!(one_missing.unexpected.is_empty());
        let mut extra = right_errors();
        extra.push(actual(4, "missing-terminator", "ends without a terminator"));
        let one_extra = check(&annotations, &extra).unwrap_err();
        assert!(one_extra.missing.is_empty());
        assert_eq!(one_extra.unexpected.len(), 1);
    }

    #[test]
    fn one_error_cannot_satisfy_two_annotations() {
        let twice = "return ; error: bad-edge edge ; error: bad-edge edge\n";
        let annotations = parse_annotations(twice).unwrap();
        let one = vec![actual(1, "bad-edge", "edge to block3")];
        assert_eq!(check(&annotations, &one).unwrap_err().missing.len(), 1);
    }

    #[test]
    fn matching_does_not_depend_on_order() {
        // The first annotation fits both errors; a greedy match could take the wrong one.
        let text = "return ; error: bad-edge block ; error: bad-edge block3\n";
        let annotations = parse_annotations(text).unwrap();
        let reported = vec![
            actual(1, "bad-edge", "edge to block3"),
            actual(1, "bad-edge", "edge to block4"),
        ];
        assert_eq!(check(&annotations, &reported), Ok(()));
    }
}
