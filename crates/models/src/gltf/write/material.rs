//! Materials (`pbrMetallicRoughness`, the rest in extras) and their textures: located,
//! embedded, written beside the output or referred to by URI, once per file.

use super::buffer::Chunk;
use super::{extras, floats, label, non_empty, push, Builder};
use crate::gltf::textures::{self, Embedded, HeldTexture};
use crate::gltf::Error;
use crate::scene::{AlphaMode, Material, Scene};
use gltf_json as json;
use json::validation::Checked::Valid;
use json::Index;
use serde_json::Value;
use std::fmt::Display;

/// Which textures a written material uses (its primitives need TEXCOORD_0, and TANGENT for a
/// normal map).
#[derive(Clone, Copy, Default)]
pub(super) struct TextureUse {
    pub(super) any: bool,
    pub(super) normal_map: bool,
}

/// What [`Builder::found_image`] found.
pub(super) enum FoundImage {
    /// The file already has a texture.
    Done(Index<json::Texture>),
    /// A new file: its real path and its PNG or JPEG bytes with their MIME type.
    New(std::path::PathBuf, Vec<u8>, &'static str),
}

impl Builder<'_> {
    /// The texture for a source path, written once per distinct path.
    pub(super) fn texture(
        &mut self,
        raw: &str,
        owner: &dyn Display,
    ) -> Result<Option<Index<json::Texture>>, Error> {
        if let Some(t) = self.textures.get(raw) {
            return Ok(*t);
        }
        let texture = if self.options.embed_textures {
            self.file_texture(raw, owner, None)?
        } else if let Some(folder) = &self.options.texture_folder {
            let folder = folder.clone();
            self.file_texture(raw, owner, Some(&folder))?
        } else {
            self.referenced_texture(raw, owner)?
        };
        self.textures.insert(raw.to_owned(), texture);
        Ok(texture)
    }

    /// The real file `raw` names and its image as PNG or JPEG, with the texture already made
    /// for that file if any. `None` (with a warning, or listed as missing) when it is not
    /// found, refused by the path policy, too large or not an image.
    pub(super) fn found_image(&mut self, raw: &str, owner: &dyn Display) -> Option<FoundImage> {
        if let Some(held) = self.options.held_textures.get(raw) {
            return self.held_image(raw, held.clone(), owner);
        }
        let base = self.options.texture_base();
        let located = textures::locate_in(
            &base,
            &self.options.texture_dirs,
            raw,
            self.options.allow_outside_textures,
            &mut self.options.texture_listings.lock(),
        );
        let file = match located {
            Ok(file) => file,
            Err(e) if e.missing => {
                if !self.missing_textures.iter().any(|m| m == raw) {
                    self.missing_textures.push(raw.to_owned());
                }
                return None;
            }
            Err(e) => {
                self.warn(owner, e.reason.to_string());
                return None;
            }
        };
        if let Some(t) = self.texture_files.get(&file) {
            return Some(FoundImage::Done(*t));
        }
        match textures::load(&file, raw) {
            Embedded::Image(bytes, mime) => Some(FoundImage::New(file, bytes, mime)),
            Embedded::Refused(reason) => {
                self.warn(owner, reason.to_string());
                None
            }
        }
    }

    /// [`Self::found_image`] for a texture the caller holds. Its name is its identity, as a
    /// real path is a file's, with `\` and `::` made separators so that the file name is the
    /// last part (`Data.Pack::Model\train.png` → `train.png`). No real file has such a path:
    /// nothing is a folder inside a pack.
    fn held_image(
        &mut self,
        raw: &str,
        held: HeldTexture,
        owner: &dyn Display,
    ) -> Option<FoundImage> {
        let key = std::path::PathBuf::from(held.name.replace(['\\', ':'], "/"));
        if let Some(t) = self.texture_files.get(&key) {
            return Some(FoundImage::Done(*t));
        }
        let refused = match held.bytes {
            Ok(bytes) => match textures::load_bytes(bytes, std::path::Path::new(&held.name), raw) {
                Embedded::Image(bytes, mime) => return Some(FoundImage::New(key, bytes, mime)),
                Embedded::Refused(reason) => reason,
            },
            Err(why) => format!("texture {raw:?} not embedded: {}: {why}", held.name),
        };
        self.warn(owner, refused);
        None
    }

    /// One warning per model listing the textures that were not found.
    pub(super) fn warn_missing_textures(&mut self) {
        if self.missing_textures.is_empty() {
            return;
        }
        let list: Vec<String> = self
            .missing_textures
            .iter()
            .map(|m| format!("{m:?}"))
            .collect();
        let dirs = if self.options.texture_dirs.is_empty() {
            String::new()
        } else {
            " and in the GltfOptions::texture_dirs folders".to_owned()
        };
        let message = format!(
            "{} texture file(s) not found beside the model{dirs} (kept in the materials' \
             extras): {}",
            list.len(),
            list.join(", ")
        );
        // Several materials: the place is the list, so the warning is the whole scene's.
        self.warn("", message);
    }

    /// The texture for the file `raw` names, once per real file: embedded (`folder` `None`),
    /// or written into `folder` beside the output and referred to by relative URI (PNG and
    /// JPEG copied, other formats converted to PNG).
    pub(super) fn file_texture(
        &mut self,
        raw: &str,
        owner: &dyn Display,
        folder: Option<&str>,
    ) -> Result<Option<Index<json::Texture>>, Error> {
        let (file, bytes, mime) = match self.found_image(raw, owner) {
            None => return Ok(None),
            Some(FoundImage::Done(t)) => return Ok(Some(t)),
            Some(FoundImage::New(file, bytes, mime)) => (file, bytes, mime),
        };
        let image = match folder {
            None => json::Image {
                buffer_view: Some(self.view(Chunk::Bytes(bytes.into()), None)?),
                mime_type: Some(json::image::MimeType(mime.to_owned())),
                name: non_empty(raw),
                uri: None,
                extensions: None,
                extras: None,
            },
            Some(folder) => {
                let relative = self.image_file_name(folder, &file, mime);
                self.image_files.push((relative.clone(), bytes));
                json::Image {
                    buffer_view: None,
                    mime_type: None,
                    name: non_empty(raw),
                    uri: Some(textures::percent_encode(&relative)),
                    extensions: None,
                    extras: None,
                }
            }
        };
        let texture = self.push_texture(image)?;
        self.texture_files.insert(file, texture);
        Ok(Some(texture))
    }

    /// `folder/STEM.png` (or `.jpg`) for `file`; distinct files with the same name (from two
    /// folders) get distinct names (`STEM-1.png`, …).
    pub(super) fn image_file_name(
        &self,
        folder: &str,
        file: &std::path::Path,
        mime: &str,
    ) -> String {
        let ext = if mime == "image/jpeg" { "jpg" } else { "png" };
        let stem = file
            .file_stem()
            // A CP932 name (not UTF-8) keeps its Japanese text, as the lookup read it.
            .map(|s| {
                textures::name_text(s)
                    .unwrap_or_else(|| s.to_string_lossy())
                    .into_owned()
            })
            .filter(|s| !s.is_empty() && s != "..")
            .unwrap_or_else(|| "texture".to_owned());
        let taken = |name: &str| {
            self.image_files
                .iter()
                .any(|(t, _)| t.eq_ignore_ascii_case(name))
        };
        let mut name = format!("{folder}/{stem}.{ext}");
        let mut n = 1;
        while taken(&name) {
            name = format!("{folder}/{stem}-{n}.{ext}");
            n += 1;
        }
        name
    }

    /// The texture referring to `raw` by relative URI, once per URI.
    pub(super) fn referenced_texture(
        &mut self,
        raw: &str,
        owner: &dyn Display,
    ) -> Result<Option<Index<json::Texture>>, Error> {
        let Some((uri, absolute)) = textures::relative_uri(raw) else {
            self.warn(
                owner,
                format!("texture path {raw:?} names no file; not referenced"),
            );
            return Ok(None);
        };
        let ext = uri
            .rsplit('.')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if !matches!(ext.as_str(), "png" | "jpg" | "jpeg") {
            // glTF allows only PNG and JPEG images: a .tga URI fails the validator and
            // viewers. The path stays in the material's extras.
            self.warn(owner, format!(
                "texture {raw:?} is not PNG or JPEG, which a glTF URI cannot name; not referenced (embed it, or write it beside the output, to convert it)"
            ));
            return Ok(None);
        }
        if absolute {
            self.warn(
                owner,
                format!("absolute texture path {raw:?} written as the relative URI {uri:?}"),
            );
        }
        if let Some(t) = self.texture_files.get(std::path::Path::new(&uri)) {
            return Ok(Some(*t));
        }
        let image = json::Image {
            buffer_view: None,
            mime_type: None,
            name: non_empty(raw),
            uri: Some(uri.clone()),
            extensions: None,
            extras: None,
        };
        let texture = self.push_texture(image)?;
        self.texture_files.insert(uri.into(), texture);
        Ok(Some(texture))
    }

    pub(super) fn push_texture(
        &mut self,
        image: json::Image,
    ) -> Result<Index<json::Texture>, Error> {
        let source = push(&mut self.root.images, image)?;
        push(
            &mut self.root.textures,
            json::Texture {
                name: None,
                sampler: None,
                source,
                extensions: None,
                extras: None,
            },
        )
    }

    pub(super) fn material(
        &mut self,
        i: usize,
        m: &Material,
    ) -> Result<(json::Material, TextureUse), Error> {
        let label = label("material", i, &m.name);
        let mut extra = m.extras.clone();
        // Validation clamped the colour factors (the source values are in extras).
        let (base, emissive) = (m.base_color, m.emissive);
        let mut roughness = 1.0;
        if let Some((color, power)) = m.specular {
            extra.entry("specular").or_insert_with(|| floats(&color));
            extra
                .entry("specularPower")
                .or_insert_with(|| Value::from(f64::from(power)));
            // Blinn-Phong exponent → GGX roughness (a common approximation).
            if power.is_finite() && power > 0.0 {
                roughness = (2.0 / (power + 2.0)).sqrt().sqrt().clamp(0.0, 1.0);
            }
        }
        if let Some(p) = &m.light_map {
            extra
                .entry("lightMap")
                .or_insert_with(|| Value::from(p.clone()));
        }
        if let Some(p) = &m.specular_texture {
            extra
                .entry("specularMap")
                .or_insert_with(|| Value::from(p.clone()));
        }
        let color = match &m.color_texture {
            Some(p) => {
                let t = self.texture(p, &label)?;
                if t.is_none() {
                    extra
                        .entry("colorTexture")
                        .or_insert_with(|| Value::from(p.clone()));
                }
                t
            }
            None => None,
        };
        let normal = match &m.normal_texture {
            Some(p) => {
                let t = self.texture(p, &label)?;
                if t.is_none() {
                    extra
                        .entry("normalTexture")
                        .or_insert_with(|| Value::from(p.clone()));
                }
                t
            }
            None => None,
        };
        let alpha_cutoff = match (m.alpha_mode, m.alpha_cutoff) {
            (AlphaMode::Mask, Some(c)) if c.is_finite() && c >= 0.0 => {
                Some(json::material::AlphaCutoff(c))
            }
            _ => None,
        };
        let mat = json::Material {
            alpha_cutoff,
            alpha_mode: Valid(match m.alpha_mode {
                AlphaMode::Opaque => json::material::AlphaMode::Opaque,
                AlphaMode::Mask => json::material::AlphaMode::Mask,
                AlphaMode::Blend => json::material::AlphaMode::Blend,
            }),
            double_sided: m.double_sided,
            name: non_empty(&m.name),
            pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                base_color_factor: json::material::PbrBaseColorFactor(base),
                base_color_texture: color.map(|index| json::texture::Info {
                    index,
                    tex_coord: 0,
                    extensions: None,
                    extras: None,
                }),
                metallic_factor: json::material::StrengthFactor(0.0),
                roughness_factor: json::material::StrengthFactor(roughness),
                metallic_roughness_texture: None,
                extensions: None,
                extras: None,
            },
            normal_texture: normal.map(|index| json::material::NormalTexture {
                index,
                scale: 1.0,
                tex_coord: 0,
                extensions: None,
                extras: None,
            }),
            occlusion_texture: None,
            emissive_texture: None,
            emissive_factor: json::material::EmissiveFactor(emissive),
            extensions: None,
            extras: extras(&extra)?,
        };
        let uses = TextureUse {
            any: color.is_some() || normal.is_some(),
            normal_map: normal.is_some(),
        };
        Ok((mat, uses))
    }
}

impl Builder<'_> {
    /// Writes every material one for one, so scene material i is glTF material i; returns
    /// which textures each uses.
    pub(super) fn materials(&mut self, scene: &Scene) -> Result<Vec<TextureUse>, Error> {
        let mut textured = Vec::with_capacity(scene.materials.len());
        for (i, m) in scene.materials.iter().enumerate() {
            let (mat, uses) = self.material(i, m)?;
            push(&mut self.root.materials, mat)?;
            textured.push(uses);
        }
        self.warn_missing_textures();
        Ok(textured)
    }
}
