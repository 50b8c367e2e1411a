//! elem → [`Scene`](super::Scene). (Being written: returns an empty scene with a warning.)

use super::{Conversion, SceneOptions, SceneWarning};

pub(crate) fn convert(_doc: &elfreina_elem::Elem, _options: &SceneOptions) -> Conversion {
    Conversion {
        warnings: vec![SceneWarning(
            "elem to scene conversion is not implemented yet".into(),
        )],
        ..Conversion::default()
    }
}
