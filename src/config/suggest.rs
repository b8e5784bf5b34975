//! "Did you mean": edit distance (strsim's optimal string alignment) between
//! a misspelt name and the names that are allowed where it was written, for
//! the help lines of diagnostics.

/// Edit distance (optimal string alignment: insertions, deletions,
/// substitutions and swaps of neighbours each cost 1), ignoring ASCII case.
pub(crate) fn distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(&a.to_ascii_lowercase(), &b.to_ascii_lowercase())
}

/// The candidate nearest to `word`, if it is near enough to be a likely
/// misspelling: at most a third of the longer name is edited (at least one
/// edit allowed), and not all of it.
pub(crate) fn closest<'a, S: AsRef<str>>(word: &str, candidates: &'a [S]) -> Option<&'a str> {
    let (best, d) = nearest(word, candidates)?;
    let longest = word.chars().count().max(best.chars().count());
    (d <= (longest / 3).max(1) && d < longest).then_some(best)
}

/// The candidate nearest to `word` however far it is, preferring one that
/// contains `word` (so `tiling` finds `shared-memory-tiling`).
pub(crate) fn nearest_always<'a, S: AsRef<str>>(
    word: &str,
    candidates: &'a [S],
) -> Option<&'a str> {
    let lower = word.to_ascii_lowercase();
    if !lower.is_empty()
        && let Some(c) = candidates
            .iter()
            .map(AsRef::as_ref)
            .find(|c| c.to_ascii_lowercase().contains(&lower))
    {
        return Some(c);
    }
    nearest(word, candidates).map(|(c, _)| c)
}

/// `candidates` ordered by distance to `word`, nearest first (ties keep
/// their order).
pub(crate) fn by_distance<'a, S: AsRef<str>>(word: &str, candidates: &'a [S]) -> Vec<&'a str> {
    let mut sorted: Vec<&str> = candidates.iter().map(AsRef::as_ref).collect();
    sorted.sort_by_key(|c| distance(word, c));
    sorted
}

fn nearest<'a, S: AsRef<str>>(word: &str, candidates: &'a [S]) -> Option<(&'a str, usize)> {
    candidates
        .iter()
        .map(|c| (c.as_ref(), distance(word, c.as_ref())))
        .min_by_key(|&(_, d)| d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(distance("naiv", "naive"), 1);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("Padding", "padding"), 0);
        assert_eq!(
            distance("nmae", "name"),
            1,
            "a swap of neighbours is one edit"
        );
        assert_eq!(
            distance("ca", "abc"),
            3,
            "optimal string alignment, not Damerau"
        );
        assert_eq!(distance("Grïd", "GRÏD"), 1, "case is ignored in ASCII only");
    }

    #[test]
    fn closest_only_suggests_plausible_misspellings() {
        let names = ["naive", "tiled", "padded", "copy"];
        assert_eq!(closest("naiv", &names), Some("naive"));
        assert_eq!(closest("tield", &names), Some("tiled"));
        assert_eq!(closest("zzzzzzzz", &names), None);
        assert_eq!(closest("x", &[] as &[&str]), None);
        assert_eq!(
            closest("M", &["N"]),
            None,
            "a whole word replaced is no misspelling"
        );
        assert_eq!(closest("TILES", &["TILE", "N"]), Some("TILE"));
    }

    #[test]
    fn nearest_always_prefers_containing_words_then_distance() {
        let words = ["padding", "shared-memory-tiling", "coalescing"];
        assert_eq!(
            nearest_always("tiling", &words),
            Some("shared-memory-tiling")
        );
        assert_eq!(nearest_always("coalesing", &words), Some("coalescing"));
        assert_eq!(nearest_always("qqqq", &words), Some("padding"));
    }

    #[test]
    fn by_distance_sorts_nearest_first_and_is_stable() {
        let names = ["copy", "tiled", "naive", "padded"];
        assert_eq!(
            by_distance("naiv", &names),
            ["naive", "copy", "tiled", "padded"]
        );
    }
}
