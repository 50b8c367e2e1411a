//! `parse(write(doc)) == doc` for many generated documents, with arbitrary float bit patterns
//! (NaN payloads, infinities, subnormals, `-0.0`), 32-bit words, and names in both encodings.

use skm_text::Model as _;
use skm_text::{AttributeRange, Bone, Encoding, Material, Name, Skm, Vertex};

/// xorshift64*: a fixed-seed generator, so the test is deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    fn u32(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }
    fn f32(&mut self) -> f32 {
        match self.below(8) {
            0 => f32::from_bits(self.u32()),
            1 => f32::from_bits(self.u32() & 0x807F_FFFF), // subnormal or zero
            2 => f32::from_bits(self.u32() | 0x7F80_0000), // NaN (or inf)
            3 => [0.0, -0.0, 1.0, -1.0, f32::MAX, f32::MIN_POSITIVE, 0.1][self.below(7) as usize],
            _ => (self.u32() as f32 / u32::MAX as f32 - 0.5) * 200.0,
        }
    }
    fn f32s<const N: usize>(&mut self) -> [f32; N] {
        std::array::from_fn(|_| self.f32())
    }
    fn name(&mut self, encoding: Encoding) -> Name {
        const WORDS: [&str; 8] = [
            "*root",
            ">腕",
            ">>肘 左",
            "骨\t2",
            "a\\b",
            "",
            "tex.bmp",
            "ｱｲｳ",
        ];
        let text: String = (0..self.below(3) + 1)
            .map(|_| WORDS[self.below(WORDS.len() as u64) as usize])
            .collect();
        let name = Name::encode(&text, encoding).unwrap();
        if name.raw.eq_ignore_ascii_case(b"(NULL)") {
            Name::from_raw(b"x".to_vec())
        } else {
            name
        }
    }
}

fn document(rng: &mut Rng) -> Skm {
    let encoding = if rng.below(4) == 0 {
        Encoding::Utf8
    } else {
        Encoding::ShiftJis
    };
    let nv = rng.below(40) as usize;
    let nb = rng.below(6) as usize;
    let vertices: Vec<Vertex> = (0..nv)
        .map(|_| {
            let palette: [u8; 4] = std::array::from_fn(|_| {
                if nb == 0 {
                    rng.below(256) as u8
                } else {
                    rng.below(nb as u64) as u8
                }
            });
            Vertex {
                position: rng.f32s(),
                weights: rng.f32s(),
                blend_indices: u32::from_le_bytes(palette),
                normal: rng.f32s(),
                uv: rng.f32s(),
            }
        })
        .collect();
    let nf = if nv == 0 { 0 } else { rng.below(30) as usize };
    let triangles: Vec<[u32; 3]> = (0..nf)
        .map(|_| std::array::from_fn(|_| rng.below(nv as u64) as u32))
        .collect();
    let adjacency: Vec<[u32; 3]> = (0..nf)
        .map(|_| {
            std::array::from_fn(|_| match rng.below(3) {
                0 => u32::MAX,
                1 => rng.u32(),
                _ => rng.below(nf as u64) as u32,
            })
        })
        .collect();
    let nm = rng.below(4) as usize;
    let materials: Vec<Material> = (0..nm)
        .map(|_| Material {
            diffuse: rng.f32s(),
            ambient: rng.f32s(),
            specular: rng.f32s(),
            emissive: rng.f32s(),
            power: rng.f32(),
            texture: (rng.below(2) == 0).then(|| rng.name(encoding)),
        })
        .collect();
    let attributes: Vec<AttributeRange> = if nm == 0 {
        Vec::new()
    } else {
        (0..rng.below(4))
            .map(|_| {
                let face_start = rng.below(nf as u64 + 1) as u32;
                let vertex_start = rng.below(nv as u64 + 1) as u32;
                AttributeRange {
                    material: rng.below(nm as u64) as u32,
                    face_start,
                    face_count: rng.below(nf as u64 - u64::from(face_start) + 1) as u32,
                    vertex_start,
                    vertex_count: rng.below(nv as u64 - u64::from(vertex_start) + 1) as u32,
                }
            })
            .collect()
    };
    let bones: Vec<Bone> = (0..nb)
        .map(|i| Bone {
            name: rng.name(encoding),
            parent: if i == 0 || rng.below(4) == 0 {
                -1
            } else {
                rng.below(i as u64) as i32
            },
            symmetric: match rng.below(3) {
                0 => -1,
                1 => rng.below(nb as u64) as i32,
                _ => rng.u32() as i32,
            },
            begin: rng.f32s(),
            end: rng.f32s(),
            rotation: rng.f32s(),
        })
        .collect();
    Skm {
        encoding,
        vertices,
        triangles,
        adjacency,
        materials,
        attributes,
        bones,
    }
}

#[test]
fn generated_documents_survive_write_then_read() {
    let mut rng = Rng(0x5EED_0F5C_0DE5_1234);
    for case in 0..400 {
        let doc = document(&mut rng);
        let bytes = doc
            .to_bytes()
            .unwrap_or_else(|e| panic!("case {case}: write: {e}"));
        let back = Skm::from_bytes(&bytes).unwrap_or_else(|e| {
            panic!(
                "case {case}: read: {e}\n{}",
                String::from_utf8_lossy(&bytes)
            )
        });
        assert!(back == doc, "case {case}: differs\n{doc:?}\n{back:?}");
        assert_eq!(back.to_bytes().unwrap(), bytes, "case {case}: rewrite");
        assert!(skm_text::sniff(&bytes), "case {case}: sniff");
    }
}

#[test]
fn every_f32_spelling_reads_back_exactly() {
    // A sweep over bit patterns, through a one-vertex document.
    let mut rng = Rng(42);
    let mut doc = Skm {
        vertices: vec![Vertex::default()],
        ..Skm::default()
    };
    for i in 0..20_000u32 {
        let bits = match i {
            0..=255 => i,                 // smallest subnormals
            256..=511 => 0x7F7F_FF00 + i, // largest finite values
            512..=767 => 0x3F80_0000 + i, // around 1.0
            _ => rng.u32(),
        };
        let v = f32::from_bits(bits);
        doc.vertices[0].position = [v, -v, v];
        let bytes = doc.to_bytes().unwrap();
        let back = Skm::from_bytes(&bytes).unwrap();
        assert_eq!(
            back.vertices[0].position.map(f32::to_bits),
            [bits, bits ^ 0x8000_0000, bits],
            "{bits:#010x}: {}",
            String::from_utf8_lossy(&bytes)
        );
    }
}
