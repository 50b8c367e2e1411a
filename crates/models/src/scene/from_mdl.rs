//! mdl → [`Scene`](super::Scene). (Being written: returns an empty scene with a warning.)

use super::{Conversion, SceneOptions, SceneWarning};

pub(crate) fn convert(_doc: &mdl_format::Mdl, _options: &SceneOptions) -> Conversion {
    Conversion {
        warnings: vec![SceneWarning(
            "mdl to scene conversion is not implemented yet".into(),
        )],
        ..Conversion::default()
    }
}
