//! Summary figures for y_kim EditAnimation `.skm`.
//!
//! * `version`: `-` (the format has no version).
//! * `meshes`: 1 (a file is one D3DX mesh).
//! * `vertices`: the rows of `Vertices:`.
//! * `faces`: the `Indices:` count ÷ 3 (one triangle per index row).
//! * `materials`: the entries of `Materials:`.
//! * `bones`: the entries of `Bone:` (0 for a static mesh, with or without a `Bone: 0` header).
//! * `animations`: 0 (animation lives in the unspecified `.bnf` companion).
//! * `textures`: the distinct texture names that are not `(NULL)`, decoded in the document's
//!   encoding, in material order.
//! * `details`:
//!   * `encoding`: `shift_jis` or `utf-8`, how the names were decoded;
//!   * `attribute_ranges`: the rows of `Attributes:`;
//!   * `bone_names`: the decoded bone names, in order;
//!   * `roots`: the bones whose parent is −1;
//!   * `symmetric_pairs`: the bones whose symmetric partner is another bone;
//!   * `open_edges`: adjacency entries with no neighbour (a value ≥ the face count).
use crate::{Format, Summary};
use serde_json::{Map, Value};
use skm_text::Encoding;

fn summarize(doc: &skm_text::Skm) -> Summary {
    let faces = doc.triangles.len();
    let mut details = Map::new();
    details.insert(
        "encoding".into(),
        Value::from(match doc.encoding {
            Encoding::ShiftJis => "shift_jis",
            Encoding::Utf8 => "utf-8",
        }),
    );
    details.insert(
        "attribute_ranges".into(),
        Value::from(doc.attributes.len() as u64),
    );
    details.insert(
        "bone_names".into(),
        Value::from(
            doc.bones
                .iter()
                .map(|b| doc.text(&b.name).into_owned())
                .collect::<Vec<_>>(),
        ),
    );
    details.insert(
        "roots".into(),
        Value::from(doc.bones.iter().filter(|b| b.parent < 0).count() as u64),
    );
    details.insert(
        "symmetric_pairs".into(),
        Value::from(
            doc.bones
                .iter()
                .enumerate()
                .filter(|(i, b)| {
                    b.symmetric_index()
                        .is_some_and(|s| s != *i && s < doc.bones.len())
                })
                .count() as u64,
        ),
    );
    details.insert(
        "open_edges".into(),
        Value::from(
            doc.adjacency
                .iter()
                .flatten()
                .filter(|&&f| f as usize >= faces)
                .count() as u64,
        ),
    );
    Summary {
        format: Format::Skm,
        version: "-".into(),
        meshes: 1,
        vertices: doc.vertices.len() as u64,
        faces: faces as u64,
        materials: doc.materials.len() as u64,
        bones: doc.bones.len() as u64,
        animations: 0,
        textures: crate::summary::distinct_in_order(
            doc.materials
                .iter()
                .filter_map(|m| m.texture.as_ref())
                .map(|t| doc.text(t)),
        ),
        details,
    }
}

impl super::FormatModel for skm_text::Skm {
    const FORMAT: Format = Format::Skm;

    fn into_document(self) -> crate::Document {
        crate::Document::Skm(self)
    }

    fn summary(&self) -> Summary {
        summarize(self)
    }

    fn to_scene(
        &self,
        options: &crate::scene::SceneOptions,
        _budget: &mut crate::scene::Budget,
    ) -> Result<crate::scene::Conversion, crate::Error> {
        Ok(crate::scene::from_skm::convert(self, options))
    }

    fn from_scene(
        scene: &crate::scene::ValidScene,
        base: Option<&Self>,
        options: &crate::scene::ImportOptions,
    ) -> Result<crate::scene::Imported<Self>, crate::Error> {
        crate::scene::to_skm::convert(scene, base, options)
    }
}
