//! Arguments with placeholders: `args="--c {C} --depth {Depth}"` gives a CodinGame bot (which
//! has no options) the values of a tune's parameters, or of `option.C=1.5`, on its command line.
//!
//! For users (`docs/guide/codingame.md`, "Tuning a bot"): a placeholder is `{NAME}`, NAME a
//! letter or `_` followed by letters, digits or `_`, anywhere in an argument (`--c={C}` too);
//! any other brace is left as written. Names are compared without regard to case, as option
//! names are. Every process gets its arguments with the values of the game it plays: a bot
//! gets a fresh process for every game anyway, so a changed value costs nothing more.

/// The placeholder names in `args`, in the order they first appear (each once, spelled as
/// first written).
pub fn placeholders(args: &[String]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for arg in args {
        for (_, name) in spans(arg) {
            if !names.iter().any(|known| known.eq_ignore_ascii_case(name)) {
                names.push(name.to_string());
            }
        }
    }
    names
}

/// `args` with every placeholder replaced by its value in `values` (names compared without
/// regard to case; the last value given wins).
///
/// # Errors
/// [`NoValue`] naming the first placeholder that has no value.
pub fn substitute(args: &[String], values: &[(String, String)]) -> Result<Vec<String>, NoValue> {
    args.iter()
        .map(|arg| {
            let mut text = String::with_capacity(arg.len());
            let mut copied = 0;
            for (at, name) in spans(arg) {
                let value = values
                    .iter()
                    .rev()
                    .find(|(given, _)| given.eq_ignore_ascii_case(name))
                    .map(|(_, value)| value)
                    .ok_or_else(|| NoValue {
                        name: name.to_string(),
                    })?;
                text.push_str(&arg[copied..at]);
                text.push_str(value);
                copied = at + name.len() + 2;
            }
            text.push_str(&arg[copied..]);
            Ok(text)
        })
        .collect()
}

/// A placeholder of the arguments that was given no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoValue {
    /// The placeholder's name, as written between the braces.
    pub name: String,
}

impl std::fmt::Display for NoValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = &self.name;
        write!(
            f,
            "the placeholder {{{name}}} of its arguments has no value: give option.{name}=VALUE"
        )
    }
}

impl std::error::Error for NoValue {}

/// The placeholders of `arg`: where each `{` is, and the name between the braces.
fn spans(arg: &str) -> Vec<(usize, &str)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(open) = arg[from..].find('{').map(|at| from + at) {
        let rest = &arg[open + 1..];
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..name_len];
        let starts_well = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
        if starts_well && rest[name_len..].starts_with('}') {
            found.push((open, name));
            from = open + name_len + 2;
        } else {
            from = open + 1;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    fn values(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn placeholders_are_named_braces_anywhere_in_an_argument() {
        let args = words("--c {C} --depth={Depth} {c} {} {1x} {a b} {{X}} json:{\"k\":1}");
        assert_eq!(placeholders(&args), ["C", "Depth", "X"]);
        assert!(placeholders(&words("--plain 3")).is_empty());
    }

    #[test]
    fn values_replace_placeholders_and_other_braces_stay() {
        let args = words("--c {C} --depth={Depth} {{X}} {1x} x{c}y");
        let filled = substitute(
            &args,
            &values(&[("c", "1.5"), ("DEPTH", "7"), ("X", "0"), ("C", "2")]),
        );
        assert_eq!(filled, Ok(words("--c 2 --depth=7 {0} {1x} x2y")));
        assert_eq!(
            substitute(&args, &values(&[("C", "1")])),
            Err(NoValue {
                name: "Depth".into()
            })
        );
        assert_eq!(substitute(&words("a b"), &[]), Ok(words("a b")));
    }
}
