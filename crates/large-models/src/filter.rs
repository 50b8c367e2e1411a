//! The benchmark filter on a bench's command line, so that a bench generates only the large
//! models its filter can select (generating one takes seconds and hundreds of MB).

/// criterion's options that take a value as the next argument (criterion 0.8's command
/// line). Their values are not the filter: `--measurement-time 4 mdl` filters on `mdl`.
const TAKES_A_VALUE: &[&str] = &[
    "-c",
    "--color",
    "-s",
    "--save-baseline",
    "-b",
    "--baseline",
    "--baseline-lenient",
    "--load-baseline",
    "--format",
    "--profile-time",
    "--sample-size",
    "--warm-up-time",
    "--measurement-time",
    "--nresamples",
    "--noise-threshold",
    "--confidence-level",
    "--significance-level",
    "--plotting-backend",
    "--output-format",
];

/// The filter given to this bench process (`cargo bench … -- [OPTIONS] FILTER`), if any: the
/// first argument that is neither an option nor an option's value. A bench keeps a part when
/// the filter's text contains its name (`'smf|bmf'`, `read_glb_smf`): an approximation of
/// criterion's regex match that never skips a part the filter could select, as long as the
/// filter names the part literally.
pub fn bench_filter() -> Option<String> {
    filter_in(std::env::args().skip(1))
}

fn filter_in(args: impl IntoIterator<Item = String>) -> Option<String> {
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if TAKES_A_VALUE.contains(&arg.as_str()) {
            args.next();
        } else if !arg.starts_with('-') {
            return Some(arg);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::filter_in;

    fn filter(args: &[&str]) -> Option<String> {
        filter_in(args.iter().map(|a| a.to_string()))
    }

    #[test]
    fn the_filter_is_not_an_option_value() {
        assert_eq!(filter(&["--bench"]), None);
        assert_eq!(filter(&["--bench", "mdl"]).as_deref(), Some("mdl"));
        assert_eq!(
            filter(&[
                "--bench",
                "--warm-up-time",
                "1",
                "--measurement-time",
                "4",
                "smf|bmf"
            ])
            .as_deref(),
            Some("smf|bmf")
        );
        assert_eq!(filter(&["-s", "base", "mdl"]).as_deref(), Some("mdl"));
        assert_eq!(
            filter(&["--sample-size=10", "elem"]).as_deref(),
            Some("elem")
        );
        assert_eq!(filter(&["mdl", "--quick"]).as_deref(), Some("mdl"));
        assert_eq!(filter(&["--measurement-time", "4"]), None);
    }
}
