//! smf → [`Scene`](super::Scene). (Being written: returns an empty scene with a warning.)

use super::{Conversion, SceneOptions, SceneWarning};

pub(crate) fn convert(_doc: &selene_smf::Smf, _options: &SceneOptions) -> Conversion {
    Conversion {
        warnings: vec![SceneWarning(
            "smf to scene conversion is not implemented yet".into(),
        )],
        ..Conversion::default()
    }
}
