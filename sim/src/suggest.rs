//! "Did you mean" for names a user mistyped: the known names nearest by edit distance (the
//! stream assembler's command names, the microcode assembler's labels and fields, `--until`'s
//! labels).

/// Levenshtein distance between `a` and `b`, by chars, case ignored.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().flat_map(char::to_lowercase).collect();
    let b: Vec<char> = b.chars().flat_map(char::to_lowercase).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The `n` names of `known` nearest to `name` (ties by name), each once.
pub fn nearest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>, n: usize) -> Vec<String> {
    let mut v: Vec<(usize, &str)> = known
        .into_iter()
        .map(|k| (edit_distance(name, k), k))
        .collect();
    v.sort_unstable();
    v.dedup();
    v.into_iter().take(n).map(|(_, k)| k.to_string()).collect()
}

/// ` (did you mean `x`?)` when a known name is close to `name` (at most a third of its
/// length apart, one edit for a name of 3 to 5 characters; none for shorter names, where any
/// other short name is as close), else nothing: a suggestion only where it helps.
pub fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    let n = name.chars().count();
    let limit = (n / 3).max(usize::from(n >= 3));
    let close: Vec<String> = nearest(name, known, 1)
        .into_iter()
        .filter(|k| edit_distance(name, k) <= limit)
        .collect();
    match close.first() {
        Some(k) => format!(" (did you mean `{k}`?)"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_suggestions() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("GCD_inc", "gcd_inc"), 0);
        assert_eq!(
            nearest("cler", ["set", "clear", "clr"], 2),
            ["clear", "clr"]
        );
        assert_eq!(
            did_you_mean("five_ll", ["five_l", "fiver"]),
            " (did you mean `five_l`?)"
        );
        assert_eq!(did_you_mean("zzz", ["five_l"]), "");
        assert_eq!(did_you_mean("q", ["a", "b"]), "");
        assert_eq!(
            did_you_mean("wal", ["wall", "w"]),
            " (did you mean `wall`?)"
        );
    }
}
