//! bmf → [`Scene`](super::Scene). (Being written: returns an empty scene with a warning.)

use super::{Conversion, SceneOptions, SceneWarning};

pub(crate) fn convert(_doc: &bmf_block::Bmf, _options: &SceneOptions) -> Conversion {
    Conversion {
        warnings: vec![SceneWarning(
            "bmf to scene conversion is not implemented yet".into(),
        )],
        ..Conversion::default()
    }
}
