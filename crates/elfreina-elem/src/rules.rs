//! Rules shared by the reader and the writer: what an identifier is, the names each scope
//! understands, the UV scope names. The writer imports these, never the reader.

use crate::model::UV_SETS;

/// `( letter | "_" ) { letter | digit | "_" }`, letters including non-ASCII letters.
pub(crate) fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// Names each scope understands, used to reject a known name in the wrong form (e.g.
/// `Positions=1` instead of a `Positions` scope). Shared with the writer, which refuses to
/// write an unknown item under a known name.
pub(crate) mod known {
    pub const TOP: &[&str] = &[
        "Setting",
        "MeshDataList",
        "MeshDatas",
        "HierarchyList",
        "RenderingMeshList",
        "AnimationList",
    ];
    pub const SETTING: &[&str] = &[
        "ElfreinaSoftVersion",
        "SoftVersion",
        "ElfreinaBetaVersion",
        "LoadType",
        "IsRightHand",
    ];
    pub const MESH_DATA: &[&str] = &["MeshContainerCount", "MeshContainer"];
    pub const CONTAINER: &[&str] = &[
        "Name",
        "BoneCount",
        "MeshCount",
        "VertexFormat",
        "BoneNames",
        "OffsetMatrices",
        "Materials",
        "Mesh",
    ];
    pub const MATERIALS: &[&str] = &["MaterialCount", "Material"];
    pub const MATERIAL: &[&str] = &[
        "Name",
        "Diffuse",
        "Ambient",
        "Emissive",
        "Specular",
        "SpecularSharpness",
        "TextureFilename",
    ];
    pub const MESH: &[&str] = &[
        "Name",
        "VertexCount",
        "FaceCount",
        "Positions",
        "Normals",
        "Diffuse",
        "TextureUV",
        "Texture1UV",
        "Texture2UV",
        "Texture3UV",
        "Texture4UV",
        "Texture5UV",
        "Texture6UV",
        "Texture7UV",
        "Texture8UV",
        "BlendList",
        "Blends",
        "BlendIndices",
        "VertexIndices",
        "Attributes",
    ];
    pub const BLEND_LIST: &[&str] = &["BlendPart"];
    pub const BLEND_PART: &[&str] = &["BoneName", "TransformIndex", "VertexBlend"];
    pub const HIERARCHY: &[&str] = &["Node"];
    pub const NODE: &[&str] = &["NodeName", "InitPostureMatrix", "Node"];
    pub const RENDERING: &[&str] = &["RenderingMeshCount", "RenderingMesh"];
    pub const RENDERING_MESH: &[&str] =
        &["RenderingMeshName", "HierarchyNamesCount", "HierarchyNames"];
    pub const ANIMATIONS: &[&str] = &["AnimationCount", "AnimationData"];
    pub const ANIMATION: &[&str] = &[
        "AnimationName",
        "AnimationTime",
        "FrameParSecond",
        "TransitionTime",
        "Priority",
        "Loop",
        "BoneAnimation",
        "UVAnimation",
    ];
    pub const KEYED_ANIMATION: &[&str] = &["TimeKeys", "AnimationPart"];
    pub const BONE_PART: &[&str] = &[
        "NodeName",
        "TransitionTime",
        "InterpolationType",
        "TimeKeys",
        "TransKeys",
        "RotateKeys",
        "ScaleKeys",
    ];
    pub const UV_PART: &[&str] = &[
        "MeshContainerName",
        "MaterialName",
        "TimeKeys",
        "TransKeys",
        "RotateKeys",
        "ScaleKeys",
    ];
}

/// The UV scope names by set index; `TextureUV` is set 0 too.
pub(crate) const UV_TAGS: [&str; UV_SETS] = [
    "Texture1UV",
    "Texture2UV",
    "Texture3UV",
    "Texture4UV",
    "Texture5UV",
    "Texture6UV",
    "Texture7UV",
    "Texture8UV",
];
