//! `--base`: a skeleton an editor gave back in its own bone axes, and animations it resampled,
//! get the base's again when nothing they move has changed.
//!
//! Blender turns each bone to point along its own Y axis (its importer's bone heuristic): a
//! node's rest rotation, its children's translations, the skin's inverse bind matrices and
//! every key come back in other axes. It also samples every clip at 24 frames per second, from
//! its first key to its last whole frame (a clip of 30 fps keys loses up to a frame at its
//! end). A format writer then stores the editor's axes and samples: the file changes, and a
//! clip can come back shorter.
//!
//! What an engine draws has not changed, and that is what is compared: each joint's skinning
//! matrix, `global(joint) × inverseBind(joint)`, and each other node's global transform.
//! * The skeleton is the base's when both scenes name their nodes alike (each name once; an
//!   editor's `.001` and the transform-free nodes it adds around the others allowed), with the
//!   same parents by name, their skins the same joints by name (but for a joint the editor
//!   added that weighs no vertex and draws no mesh, measured as if the base bound its node at
//!   rest: Blender makes a bone of a node between a skin's root and its joints), and at rest
//!   every such matrix is the base's within [`MATRIX_TOLERANCE`]. Then every node's rest transform and place in
//!   the hierarchy, and every skin's inverse bind matrices, are the base's (the nodes in the
//!   base's order, each getting back the base's extras it lost).
//! * When at rest every joint's skinning matrix times one rotation `O` is the base's (Blender
//!   binds an armature whose rest pose is not its bind pose at its rest, turning the skinned
//!   vertices by the skinning at rest), the comparison goes on with `O`, and the scene welds
//!   when each skinned mesh turned back by `O⁻¹` is its base mesh's and was not before
//!   ([`offset_meshes`]).
//! * A clip is the base's when it pairs with the base's clip of its name, spans it within one
//!   of its sampling steps at either end, and at each of its key times every such matrix is
//!   the base's clip's there (the base's keys interpolated as [`pose::sample`] does). Then it
//!   is the base's clip, keeping the extras the editor gave back and getting back those it
//!   lost.
//! * Any other clip (a key edited, a clip added) keeps the editor's keys, turned into the
//!   base's bone axes so that it draws what the editor's did (`turn.rs`).
//!
//! The clips come in the base's order, then those the base does not have. One warning says
//! what was given back and names each clip kept as the editor's, with its first difference.
//! When the skeleton differs at rest, or an edited clip cannot be turned, the scene stays as
//! the editor gave it, and the warning says why; when the scene is the base at its bind pose
//! (Blender's default export of an armature whose rest pose is not its bind pose), it says
//! that too, and how to keep the pose.
//!
//! Work: one pose of each scene per key time of the scene's clips, bounded by
//! [`MAX_EVALUATIONS`] node transforms; memory: a few matrices per node.

use super::super::pose::{self, Skeleton, Targets};
use super::super::{
    invert, mul, transpose, Animation, ChannelPath, Node, Scene, SceneWarning, Skin, Transform,
    ValidScene, IDENTITY,
};
use super::restore_lost;
use super::skins::{self, Skins};
use super::turn::Turn;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// How far a skinning matrix or global transform may come back: per element of its rotation
/// and scale (relative, for elements beyond 1), and of its translation relative to the
/// skeleton's size. Blender 3.4's samples of the fixtures' and samples' clips lie within 2e-6
/// of the base's keys interpolated as Blender does (component by component between rotation
/// keys, then normalised); a tool that interpolates as glTF says (slerp) comes within 1e-3 of
/// that on their 45° steps. 4e-3 is about a quarter of a degree: not an edit a user makes.
const MATRIX_TOLERANCE: f32 = 4e-3;

/// Said when the scene at rest is the base in its bind pose ([`Measure::draws_bind_pose`]):
/// what the editor did. The base's rest pose is not given back: a scene whose rest pose was
/// made the bind pose on purpose (Blender's "Apply Pose as Rest Pose") is the same file.
const BIND_POSE: &str = "; every joint is where the base's inverse bind matrices put it, and \
     bound there: the scene draws the base in its bind pose, not its rest pose (Blender 3.4 \
     takes an armature's rest from the inverse bind matrices and writes that rest, not the pose \
     the nodes' transforms gave it)";

/// Added to [`BIND_POSE`] for a scene without clips: how to keep the pose.
const BIND_POSE_REMEDY: &str = "; for a model without clips, Blender's export option \
     \"Use Current Frame\" writes the pose and keeps it";

/// Slack on a clip's ends beyond its sampling step, in seconds (editors' frame times are
/// `f32`).
const TIME_TOLERANCE: f32 = 1e-4;

/// The most node poses the comparison evaluates (nodes × key times over the clips, for both
/// scenes): about a second's work. A scene beyond is left as the editor gave it, with a warning.
const MAX_EVALUATIONS: usize = 1 << 22;

/// Gives `scene` the base's rest transforms, inverse bind matrices and clips when its motion is
/// the base's (module docs); the warnings say what was given back, or why not.
pub(super) fn onto_base(scene: &mut Cow<'_, ValidScene>, base: &ValidScene) -> Vec<SceneWarning> {
    let differs = |why: &str| {
        let what = if scene.animations.is_empty() {
            "the rest pose is kept as the editor gave it (not the base's exact bones)"
        } else {
            "the rest pose and clips are kept as the editor gave them (not the base's exact \
             bones and keys)"
        };
        vec![SceneWarning::other("skeleton", format!("{what}: {why}"))]
    };
    let plan = match compare(scene, base) {
        Verdict::Unrelated => return Vec::new(),
        Verdict::Differs(why) => return differs(&why),
        Verdict::Welds(plan) => plan,
    };
    let turned = match &plan.offset {
        Some((o, why)) => match offset_meshes(scene, base, &plan, o) {
            Some(meshes) => meshes,
            None => return differs(why),
        },
        None => Vec::new(),
    };
    if plan.changes_nothing(scene, base) {
        return Vec::new();
    }
    let said = plan.describe(scene);
    let motion = scene.to_mut().parts_mut();
    for (m, mesh) in turned {
        if let Some(slot) = motion.meshes.get_mut(m) {
            *slot = mesh;
        }
    }
    let mut restored = Vec::new();
    let mut nodes = plan.nodes;
    for (node, theirs) in nodes.iter_mut().zip(&base.nodes) {
        let lost = restore_lost(&mut node.extras, &theirs.extras, &base.blobs, motion.blobs);
        restored.extend(
            lost.into_iter()
                .map(|key| format!("node {:?}'s {key}", node.name)),
        );
    }
    *motion.nodes = nodes;
    *motion.roots = base.roots.clone();
    *motion.skins = plan.skins;
    for (mesh, order) in plan.joint_remaps.iter().filter(|_| plan.offset.is_none()) {
        if let Some(joints) = motion
            .meshes
            .get_mut(*mesh)
            .and_then(|m| m.vertices.joints.as_mut())
        {
            for slot in joints.to_mut().iter_mut().flatten() {
                *slot = order.get(usize::from(*slot)).copied().unwrap_or(*slot);
            }
        }
    }
    let mut animations = Vec::with_capacity(plan.animations.len());
    for (mut clip, from) in plan.animations {
        let (kept, theirs) = (
            motion.animations.get(from.scene),
            from.base.and_then(|b| base.animations.get(b)),
        );
        if let (Some(kept), Some(theirs)) = (kept, theirs) {
            clip.extras = kept.extras.clone();
            let lost = restore_lost(&mut clip.extras, &theirs.extras, &base.blobs, motion.blobs);
            restored.extend(
                lost.into_iter()
                    .map(|key| format!("clip {:?}'s {key}", clip.name)),
            );
        }
        animations.push(clip);
    }
    *motion.animations = animations;
    let mut message = said;
    if !restored.is_empty() {
        message.push_str(&format!("; the base's {} given back", restored.join(", ")));
    }
    vec![SceneWarning::other("skeleton", message)]
}

/// Each skinned mesh of the scene turned back by `O⁻¹` (`Plan::offset`), its joint indices
/// following the plan's skins; `None` unless each is then its base mesh's (of its name, each
/// once), vertex for vertex within the mesh weld's tolerances, and not before it is turned,
/// and drawn only with a skin.
fn offset_meshes(
    scene: &Scene,
    base: &Scene,
    plan: &Plan,
    o: &[f32; 16],
) -> Option<Vec<(usize, super::super::Mesh)>> {
    let back = transpose(*o);
    let by_name = unique_names(base.meshes.iter().map(|m| m.name.as_str()))?;
    let mut turned = Vec::new();
    for (m, mesh) in scene.meshes.iter().enumerate() {
        let drawn: Vec<&Node> = (scene.nodes.iter()).filter(|n| n.mesh == Some(m)).collect();
        if !drawn.iter().any(|n| n.skin.is_some()) {
            continue;
        }
        if drawn.iter().any(|n| n.skin.is_none()) {
            return None;
        }
        let skin = (plan.nodes.iter().find(|n| n.mesh == Some(m)))
            .and_then(|n| n.skin)
            .and_then(|k| plan.skins.get(k))?;
        let mut mesh = mesh.clone();
        if let Some((_, order)) = plan.joint_remaps.iter().find(|(r, _)| *r == m) {
            for slot in mesh
                .vertices
                .joints
                .iter_mut()
                .flat_map(|a| a.to_mut().iter_mut())
                .flatten()
            {
                *slot = order.get(usize::from(*slot)).copied().unwrap_or(*slot);
            }
        }
        let untouched = mesh.clone();
        let rotate = |v: [f32; 3]| {
            let at = |i: usize| back.get(i).copied().unwrap_or(0.0);
            [0, 1, 2].map(|r| at(r) * v[0] + at(4 + r) * v[1] + at(8 + r) * v[2])
        };
        let vertices = &mut mesh.vertices;
        vertices
            .positions
            .to_mut()
            .iter_mut()
            .for_each(|p| *p = rotate(*p));
        for n in vertices
            .normals
            .iter_mut()
            .flat_map(|a| a.to_mut().iter_mut())
        {
            *n = rotate(*n);
        }
        for t in vertices
            .tangents
            .iter_mut()
            .flat_map(|a| a.to_mut().iter_mut())
        {
            let [x, y, z] = rotate([t[0], t[1], t[2]]);
            *t = [x, y, z, t[3]];
        }
        let theirs = base.meshes.get(*by_name.get(mesh.name.as_str())?)?;
        super::renumbered(&mesh, theirs, Some(skin.joints.len()))?;
        // A mesh that is the base's unturned too (a cube turned a quarter turn is a cube) was
        // not turned by the editor: the scene draws the base's bind pose, and the warning says so.
        if super::renumbered(&untouched, theirs, Some(skin.joints.len())).is_some() {
            return None;
        }
        turned.push((m, mesh));
    }
    Some(turned)
}

/// What comparing the two scenes' motion found.
enum Verdict {
    /// Not the same skeleton (names, parents, skins) or no motion to compare: nothing to say.
    Unrelated,
    /// The same skeleton, but the rest pose or a clip differs: why.
    Differs(String),
    /// The base's motion, in the scene's nodes.
    Welds(Plan),
}

/// The base's hierarchy and motion, with the scene's meshes, skins and extras on its nodes.
struct Plan {
    /// The base's nodes (order, children, transforms), each with the name, mesh, skin and
    /// extras of the scene node of its name.
    nodes: Vec<Node>,
    /// The scene's skins, their joints renumbered to `nodes` (in the base's order where they
    /// can be: `Pairing::skins`) and given the base's inverse bind matrices.
    skins: Vec<Skin>,
    /// The meshes whose `JOINTS_0` follow their skin into the base's order: each old joint
    /// index's new one.
    joint_remaps: Vec<(usize, Vec<u16>)>,
    /// The clips: the base's where the scene's is the base's, else the scene's turned into the
    /// base's axes (`turn.rs`); in the base's order, then those the base does not have.
    animations: Vec<(Animation, Pair)>,
    /// The scene clips that are not the base's, and why.
    edited: Vec<String>,
    /// How many key times of the scene's clips the base's clips were compared at.
    samples: usize,
    /// The rotation `O` by which every joint's skinning matrix in the scene, times `O`, is the
    /// base's, at rest and in every clip, and why the scene differs without it: the editor
    /// turned the skinned meshes by `O` (the skinning at rest it baked into them), and they
    /// are turned back by `O⁻¹` when each is then its base mesh's ([`offset_meshes`]).
    offset: Option<([f32; 16], String)>,
}

/// A scene clip and the base clip of its name.
#[derive(Clone, Copy)]
struct Pair {
    scene: usize,
    base: Option<usize>,
}

impl Plan {
    /// Whether the scene has the base's motion already (our own file, or an editor that kept
    /// it exactly): then nothing is said.
    fn changes_nothing(&self, scene: &Scene, base: &Scene) -> bool {
        let nodes = scene.nodes == self.nodes;
        let skins = scene.skins == self.skins;
        let clips = self.animations.len() == scene.animations.len()
            && (self.animations.iter().zip(&scene.animations))
                .all(|((a, _), b)| a.name == b.name && a.channels == b.channels);
        nodes && skins && clips && scene.roots == base.roots
    }

    /// The warning's message: what was given back, and why that is safe.
    fn describe(&self, scene: &Scene) -> String {
        let dropped = scene.nodes.len().saturating_sub(self.nodes.len());
        let added = if dropped > 0 {
            format!(", without the {dropped} node(s) the editor added around the others")
        } else {
            String::new()
        };
        let mut said = format!(
            "the base's hierarchy, rest pose and inverse bind matrices given back{added}: every \
             joint's skinning matrix and every other node's global transform is the base's at \
             rest (an editor such as Blender turns bones to its own axes)"
        );
        if self.offset.is_some() {
            said.push_str(
                ", once the skinned meshes are turned back by the rotation the editor baked into \
                 them (Blender 3.4 binds an armature whose rest pose is not its bind pose at its \
                 rest: it turns the vertices by the skinning at rest, and each joint's skinning \
                 matrix the other way); each is then its base mesh's",
            );
        }
        let exact = self.animations.len() - self.edited.len();
        if exact > 0 {
            said.push_str(&format!(
                "; {exact} clip(s) given back as the base's: at each of the editor's {} key \
                 times the pose is the base's (Blender resamples clips at 24 fps)",
                self.samples
            ));
        }
        if !self.edited.is_empty() {
            said.push_str(&format!(
                "; {} clip(s) kept as the editor's keys, turned into the base's bone axes: {}",
                self.edited.len(),
                self.edited.join(", ")
            ));
        }
        said
    }
}

/// Compares the scene's motion with the base's (module docs).
fn compare(scene: &Scene, base: &Scene) -> Verdict {
    if scene.animations.is_empty() && base.animations.is_empty() && scene.skins.is_empty() {
        return Verdict::Unrelated;
    }
    let Some(pairing) = Pairing::new(scene, base) else {
        return Verdict::Unrelated;
    };
    let clips = pair_clips(scene, base);
    let times: Vec<Vec<f32>> = scene.animations.iter().map(key_times).collect();
    let poses = times.iter().map(Vec::len).sum::<usize>() + 1;
    if poses.saturating_mul(scene.nodes.len()).saturating_mul(2) > MAX_EVALUATIONS {
        return Verdict::Differs(format!(
            "{} nodes posed at {poses} times is more than the comparison does",
            scene.nodes.len()
        ));
    }
    let mut measure = Measure::new(scene, base, &pairing);
    let mut offset = None;
    if let Some(node) = measure.differs(None, None, 0.0) {
        let mut why =
            format!("at rest, node {node:?} (its skinning matrix, for a joint) is not the base's");
        if measure.draws_bind_pose() {
            why.push_str(BIND_POSE);
            if scene.animations.is_empty() {
                why.push_str(BIND_POSE_REMEDY);
            }
        }
        // The same drawing, the skinned meshes turned the other way (`Plan::offset`)?
        match measure.offset_candidate() {
            Some(o) => {
                measure.offset = o;
                if measure.differs(None, None, 0.0).is_some() {
                    return Verdict::Differs(why);
                }
                offset = Some((o, why));
            }
            None => return Verdict::Differs(why),
        }
    }
    let mut turn = None;
    let mut samples = 0;
    let mut animations = Vec::with_capacity(clips.len());
    let mut edited = Vec::new();
    for (pair, times) in clips.iter().zip(&times) {
        let Some(a) = scene.animations.get(pair.scene) else {
            continue;
        };
        let theirs = pair.base.and_then(|b| base.animations.get(b));
        let why = match theirs {
            Some(b) => clip_differs(&measure, a, b, times),
            None => Some("the base has no clip of its name".to_owned()),
        };
        let Some(why) = why else {
            if let Some(b) = theirs {
                animations.push((b.clone(), *pair));
                samples += times.len();
            }
            continue;
        };
        if let Some((_, at_rest)) = &offset {
            // The editor's keys are not turned through an offset: the scene stays the editor's.
            return Verdict::Differs(format!("{at_rest}; clip {:?}: {why}", a.name));
        }
        if turn.is_none() {
            turn = Turn::new(scene, base, &pairing.to_base, &pairing.to_scene);
        }
        let turned = match &turn {
            Some(turn) => turn.clip(a),
            None => Err("a rest transform cannot be inverted".to_owned()),
        };
        match turned {
            Ok(clip) => {
                edited.push(format!("{:?} ({why})", a.name));
                animations.push((clip, *pair));
            }
            Err(cannot) => {
                return Verdict::Differs(format!("clip {:?} ({why}): {cannot}", a.name));
            }
        }
    }
    let skins = skins::plan(
        scene,
        base,
        &pairing.to_base,
        &pairing.to_scene,
        &pairing.base_binds,
    );
    // The base's order; clips the base does not have after them, in the scene's order.
    animations.sort_by_key(|(_, p)| (p.base.is_none(), p.base, p.scene));
    Verdict::Welds(Plan {
        nodes: pairing.nodes(scene, base, &skins),
        joint_remaps: skins.remaps,
        skins: skins.skins,
        animations,
        edited,
        samples,
        offset,
    })
}

/// How clip `a` of the scene, keyed at `times`, differs from the base's clip `b`: its span,
/// or the first node and time whose measure is not the base's; `None` when it does not.
fn clip_differs(
    measure: &Measure<'_>,
    a: &Animation,
    b: &Animation,
    times: &[f32],
) -> Option<String> {
    if let Some(why) = spans_differ(times, b) {
        return Some(why);
    }
    let (ta, tb) = (Targets::new(a), Targets::new(b));
    times.iter().find_map(|&t| {
        measure
            .differs(Some(&ta), Some(&tb), t)
            .map(|node| format!("at {t} s, node {node:?} is not posed as in the base's clip"))
    })
}

/// Why a clip sampled at `times` does not span the base's clip `b` (its first and last keys
/// within one sampling step), or `None` when it does.
fn spans_differ(times: &[f32], b: &Animation) -> Option<String> {
    let (Some(&first), Some(&last)) = (times.first(), times.last()) else {
        return Some("it has no keys".to_owned());
    };
    let step = times
        .windows(2)
        .map(|w| w.get(1).copied().unwrap_or(0.0) - w.first().copied().unwrap_or(0.0))
        .fold(0.0f32, f32::max);
    let base_first = (b.channels.iter())
        .filter_map(|c| c.times.first().copied())
        .fold(f32::INFINITY, f32::min);
    let base_last = b.duration();
    let slack = step + TIME_TOLERANCE;
    ((first - base_first).abs() > slack || (last - base_last).abs() > slack).then(|| {
        format!(
            "it runs from {first} s to {last} s, the base's from {base_first} s to {base_last} s"
        )
    })
}

/// The sorted key times of every channel of `a`, each once.
pub(super) fn key_times(a: &Animation) -> Vec<f32> {
    let mut all: Vec<f32> = a
        .channels
        .iter()
        .flat_map(|c| c.times.iter().copied())
        .collect();
    all.sort_by(f32::total_cmp);
    all.dedup_by(|x, y| x.to_bits() == y.to_bits());
    all
}

/// Each scene clip with the base clip of its name, in the scene's order (none when the name
/// repeats in either).
fn pair_clips(scene: &Scene, base: &Scene) -> Vec<Pair> {
    let by_name = unique_names(base.animations.iter().map(|a| a.name.as_str()));
    let ours = unique_names(scene.animations.iter().map(|a| a.name.as_str()));
    (scene.animations.iter().enumerate())
        .map(|(i, a)| Pair {
            scene: i,
            base: match (&by_name, &ours) {
                (Some(by_name), Some(_)) => by_name.get(a.name.as_str()).copied(),
                _ => None,
            },
        })
        .collect()
}

/// Each name's index; `None` when a name repeats.
pub(super) fn unique_names<'a>(
    names: impl Iterator<Item = &'a str>,
) -> Option<HashMap<&'a str, usize>> {
    let mut map = HashMap::new();
    for (i, name) in names.enumerate() {
        if map.insert(name, i).is_some() {
            return None;
        }
    }
    Some(map)
}

/// The scene's nodes and skins paired with the base's by name.
struct Pairing {
    /// For each scene node, the base node of its name (`None`: a node an editor added).
    to_base: Vec<Option<usize>>,
    /// For each base node, the scene node of its name.
    to_scene: Vec<usize>,
    /// Per scene node: its inverse bind matrix (from the first skin listing it) and the base's
    /// node's, the identity for a node that is no joint (for a joint the editor added that
    /// weighs no vertex, the inverse of the base node's global transform at rest).
    binds: Vec<([f32; 16], [f32; 16])>,
    /// Per scene node: whether it is a joint (in both scenes).
    joints: Vec<bool>,
    /// Per base node: its inverse bind matrix, from the first skin listing it (or as in
    /// `binds`, for a joint the editor added).
    base_binds: Vec<Option<[f32; 16]>>,
    /// For each scene node, whether it only draws a skinned mesh, in both scenes: where it
    /// hangs and its transform do not matter.
    free: Vec<bool>,
}

/// For each scene node, the base node it is: of the same name (or that name made unique by an
/// editor, `.001`), both drawing a mesh or both not. `None` for a node an editor added around
/// the others (Blender's armature: no mesh, skin, transform or extras, neither animated nor a
/// joint). `None` overall when a name repeats in the base or a base node stays unpaired.
fn pair_nodes(scene: &Scene, base: &Scene) -> Option<Vec<Option<usize>>> {
    let mut by_name: HashMap<(&str, bool), usize> = HashMap::new();
    for (i, n) in base.nodes.iter().enumerate() {
        if by_name
            .insert((n.name.as_str(), n.mesh.is_some()), i)
            .is_some()
        {
            return None;
        }
    }
    let mut taken = vec![false; base.nodes.len()];
    let mut to_base = vec![None; scene.nodes.len()];
    fn same(name: &str) -> Option<&str> {
        Some(name)
    }
    let stems: [fn(&str) -> Option<&str>; 2] = [same, super::super::lenient::unique_stem];
    for stem in stems {
        for (node, slot) in scene.nodes.iter().zip(to_base.iter_mut()) {
            let Some(name) = stem(&node.name).filter(|_| slot.is_none()) else {
                continue;
            };
            if let Some(&b) = by_name.get(&(name, node.mesh.is_some())) {
                if taken.get(b) == Some(&false) {
                    *taken.get_mut(b)? = true;
                    *slot = Some(b);
                }
            }
        }
    }
    if taken.contains(&false) {
        return None;
    }
    let moved: HashSet<usize> = (scene.animations.iter().flat_map(|a| &a.channels))
        .map(|c| c.node)
        .chain(scene.skins.iter().flat_map(|s| s.joints.iter().copied()))
        .collect();
    let added = |(i, n): (usize, &Node)| {
        n.mesh.is_none()
            && n.skin.is_none()
            && n.extras.is_empty()
            && n.transform == Transform::default()
            && !moved.contains(&i)
    };
    let unpaired = scene.nodes.iter().enumerate().zip(&to_base);
    unpaired
        .filter(|(_, b)| b.is_none())
        .all(|(node, _)| added(node))
        .then_some(to_base)
}

/// Each node's global transform at rest.
fn rest_globals(scene: &Scene) -> Vec<[f32; 16]> {
    let rests: Vec<[f32; 16]> = (0..scene.nodes.len())
        .map(|n| pose::rest_matrix(scene, n))
        .collect();
    Skeleton::new(scene).globals(&rests)
}

/// Whether `node` draws a skinned mesh and has no children.
fn skinned_leaf(node: &Node) -> bool {
    node.skin.is_some() && node.mesh.is_some() && node.children.is_empty()
}

impl Pairing {
    /// `None` unless both scenes have the same node names, each once, the same parents by
    /// name, and skins (paired in order) with the same joints by name, but for joints the
    /// editor added that weigh no vertex and draw no mesh.
    fn new(scene: &Scene, base: &Scene) -> Option<Self> {
        let to_base = pair_nodes(scene, base)?;
        let mut to_scene = vec![0; base.nodes.len()];
        for (n, &b) in to_base.iter().enumerate() {
            if let Some(b) = b {
                *to_scene.get_mut(b)? = n;
            }
        }
        let (ours, theirs) = (Skeleton::new(scene), Skeleton::new(base));
        // A skinned mesh's node moves nothing (glTF ignores its transform), and editors move it:
        // Blender puts it under the armature.
        let free: Vec<bool> = (scene.nodes.iter().zip(&to_base))
            .map(|(n, b)| {
                skinned_leaf(n) && b.and_then(|b| base.nodes.get(b)).is_some_and(skinned_leaf)
            })
            .collect();
        // A node's parent, past the nodes an editor added around the others.
        let paired_parent = |n: usize| {
            let mut cur = ours.parent(n);
            for _ in 0..=scene.nodes.len() {
                match cur.map(|p| (p, to_base.get(p).copied().flatten())) {
                    Some((p, None)) => cur = ours.parent(p),
                    Some((_, found)) => return found,
                    None => return None,
                }
            }
            None
        };
        let same_parents = (0..scene.nodes.len())
            .filter(|&n| free.get(n) == Some(&false))
            .all(|n| match to_base.get(n).copied().flatten() {
                Some(b) => paired_parent(n) == theirs.parent(b),
                None => true,
            });
        if !same_parents {
            return None;
        }
        // The same joints: a node is one in the scene when its base node is one in the base,
        // but for a joint the editor added that weighs no vertex and draws no mesh (Blender
        // makes a bone of a node between the skin's root and its joints): it draws nothing,
        // and is measured as the joint the base's node would be if bound at its rest.
        let (ours, mut theirs) = (skins::first_binds(scene), skins::first_binds(base));
        let weighted = skins::weighted_nodes(scene);
        let mut base_rests = None;
        let mut binds = Vec::with_capacity(scene.nodes.len());
        let mut joints = Vec::with_capacity(scene.nodes.len());
        for (n, (ours, &b)) in ours.iter().zip(&to_base).enumerate() {
            let bind = b.and_then(|b| theirs.get(b).copied().flatten());
            let (ours, bind, joint) = match (ours, bind, b) {
                (Some(ours), Some(bind), _) => (*ours, bind, true),
                (None, None, _) => (IDENTITY, IDENTITY, false),
                (Some(ours), None, Some(b)) => {
                    let drawn =
                        scene.nodes.get(n)?.mesh.is_some() || base.nodes.get(b)?.mesh.is_some();
                    if drawn || weighted.get(n) != Some(&false) {
                        return None;
                    }
                    let rests = base_rests.get_or_insert_with(|| rest_globals(base));
                    let bind = invert(*rests.get(b)?)?;
                    *theirs.get_mut(b)? = Some(bind);
                    (*ours, bind, false)
                }
                _ => return None,
            };
            binds.push((ours, bind));
            joints.push(joint);
        }
        Some(Self {
            to_base,
            to_scene,
            binds,
            joints,
            base_binds: theirs,
            free,
        })
    }

    /// The base's nodes, each with the name, mesh and extras of the scene node of its name,
    /// and the skin `skins` gives it.
    fn nodes(&self, scene: &Scene, base: &Scene, skins: &Skins) -> Vec<Node> {
        (base.nodes.iter().zip(&self.to_scene).zip(&skins.of_node))
            .map(|((theirs, &n), &skin)| {
                let ours = scene.nodes.get(n);
                Node {
                    name: theirs.name.clone(),
                    transform: theirs.transform,
                    children: theirs.children.clone(),
                    mesh: ours.and_then(|o| o.mesh),
                    skin,
                    extras: ours.map(|o| o.extras.clone()).unwrap_or_default(),
                }
            })
            .collect()
    }
}

/// What is compared at each node: its global transform, times its inverse bind matrix when it
/// is a joint (its first skin's).
struct Measure<'a> {
    scene: &'a Scene,
    base: &'a Scene,
    to_base: &'a [Option<usize>],
    free: &'a [bool],
    skeletons: (Skeleton, Skeleton),
    rests: (Vec<[f32; 16]>, Vec<[f32; 16]>),
    /// Per scene node: its inverse bind matrix in the scene and the base's of its name.
    binds: &'a [([f32; 16], [f32; 16])],
    /// Per scene node: whether it is a joint.
    joints: &'a [bool],
    /// The skeleton's size, for translations.
    extent: f32,
    /// Applied to each joint's skinning matrix in the scene (`Plan::offset`).
    offset: [f32; 16],
}

impl<'a> Measure<'a> {
    fn new(scene: &'a Scene, base: &'a Scene, pairing: &'a Pairing) -> Self {
        let rests = (
            (0..scene.nodes.len())
                .map(|n| pose::rest_matrix(scene, n))
                .collect::<Vec<_>>(),
            (0..base.nodes.len())
                .map(|n| pose::rest_matrix(base, n))
                .collect::<Vec<_>>(),
        );
        let skeletons = (Skeleton::new(scene), Skeleton::new(base));
        let globals = skeletons.1.globals(&rests.1);
        let keyed = base
            .animations
            .iter()
            .flat_map(|a| &a.channels)
            .filter(|c| c.path == ChannelPath::Translation)
            .flat_map(|c| c.values.iter());
        let extent = (globals.iter().flat_map(|m| m.get(12..15).unwrap_or(&[])))
            .chain(keyed)
            .fold(0.0f32, |m, x| m.max(x.abs()));
        Self {
            scene,
            base,
            to_base: &pairing.to_base,
            free: &pairing.free,
            skeletons,
            rests,
            binds: &pairing.binds,
            joints: &pairing.joints,
            extent: if extent > 0.0 { extent } else { 1.0 },
            offset: IDENTITY,
        }
    }

    /// The name of the first node whose measure differs between the scene posed by `ours` and
    /// the base posed by `theirs` at `t` (both at rest when `None`).
    fn differs(
        &self,
        ours: Option<&Targets<'_>>,
        theirs: Option<&Targets<'_>>,
        t: f32,
    ) -> Option<&'a str> {
        let locals_a = ours.map_or(Cow::Borrowed(&self.rests.0), |x| {
            Cow::Owned(x.locals(self.scene, &self.rests.0, t))
        });
        let locals_b = theirs.map_or(Cow::Borrowed(&self.rests.1), |x| {
            Cow::Owned(x.locals(self.base, &self.rests.1, t))
        });
        let a = self.skeletons.0.globals(&locals_a);
        let b = self.skeletons.1.globals(&locals_b);
        for (n, (&bn, (bind_a, bind_b))) in self.to_base.iter().zip(self.binds).enumerate() {
            let Some(bn) = bn else { continue };
            let (Some(&ga), Some(&gb), Some(false)) = (a.get(n), b.get(bn), self.free.get(n))
            else {
                continue;
            };
            let mut ours = mul(ga, *bind_a);
            if self.joints.get(n) == Some(&true) {
                ours = mul(ours, self.offset);
            }
            if !close(&ours, &mul(gb, *bind_b), self.extent) {
                return self.scene.nodes.get(n).map(|x| x.name.as_str());
            }
        }
        None
    }

    /// The rotation `O` with `skinning(scene) × O = skinning(base)` at rest for the first joint,
    /// when it is one (its translation within tolerance of none) and not the identity: an
    /// editor that gave the skinned meshes back turned by `O` and the joints' skinning matrices
    /// by `O⁻¹` (Blender 3.4, for an armature whose rest pose is not its bind pose and whose
    /// bones are not all bound at rest: Altseed's `Test_Box`, `Test_Animation`) draws the same.
    fn offset_candidate(&self) -> Option<[f32; 16]> {
        let a = self.skeletons.0.globals(&self.rests.0);
        let b = self.skeletons.1.globals(&self.rests.1);
        let nodes = self.to_base.iter().zip(self.binds).zip(self.joints);
        let (n, ((bn, (bind_a, bind_b)), _)) = nodes
            .enumerate()
            .find(|(n, (_, &joint))| joint && self.free.get(*n) == Some(&false))?;
        let (ga, gb) = (a.get(n)?, b.get((*bn)?)?);
        let o = mul(invert(mul(*ga, *bind_a))?, mul(*gb, *bind_b));
        let rotation = close(&mul(transpose(o), o), &IDENTITY, 1.0)
            && o.get(12..15)?
                .iter()
                .all(|x| x.abs() <= MATRIX_TOLERANCE * self.extent);
        (rotation && !close(&o, &IDENTITY, self.extent)).then_some(o)
    }

    /// Whether the scene at rest draws the base in its bind pose, not its rest pose: every
    /// joint where the base's inverse bind matrix puts it and bound there (its skinning matrix
    /// the identity), while some joint of the base is not bound at rest. Blender 3.4 gives an
    /// armature back so: its importer takes the bones' rest from the inverse bind matrices and
    /// the nodes' transforms as a pose, and its exporter writes the rest, not the pose, unless
    /// "Use Current Frame" is on. The bone axes it turns do not move a joint's origin, so the
    /// translations are compared.
    fn draws_bind_pose(&self) -> bool {
        let a = self.skeletons.0.globals(&self.rests.0);
        let b = self.skeletons.1.globals(&self.rests.1);
        let mut posed = false;
        let nodes = self.to_base.iter().zip(self.binds).zip(self.joints);
        for (n, ((&bn, (bind_a, bind_b)), &joint)) in nodes.enumerate() {
            let (Some(bn), true, Some(false)) = (bn, joint, self.free.get(n)) else {
                continue;
            };
            let (Some(&ga), Some(&gb), Some(bound)) = (a.get(n), b.get(bn), invert(*bind_b)) else {
                return false;
            };
            let at_bind = match (ga.get(12..15), bound.get(12..15)) {
                (Some(x), Some(y)) => close_translation(x, y, self.extent),
                _ => false,
            };
            if !at_bind || !close(&mul(ga, *bind_a), &IDENTITY, self.extent) {
                return false;
            }
            posed |= !close(&mul(gb, *bind_b), &IDENTITY, self.extent);
        }
        posed
    }
}

/// Whether two translations are the same within [`MATRIX_TOLERANCE`] of `extent`.
fn close_translation(a: &[f32], b: &[f32], extent: f32) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| (x - y).abs() <= MATRIX_TOLERANCE * extent)
}

/// Whether two transforms are the same within [`MATRIX_TOLERANCE`] (translations relative to
/// `extent`).
fn close(a: &[f32; 16], b: &[f32; 16], extent: f32) -> bool {
    a.iter().zip(b).enumerate().all(|(i, (x, y))| {
        let scale = if (12..15).contains(&i) {
            extent
        } else {
            x.abs().max(y.abs()).max(1.0)
        };
        (x - y).abs() <= MATRIX_TOLERANCE * scale
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Channel, Interpolation};

    /// `nodes` root nodes, and one clip of `keys` keys moving the first.
    fn scene(nodes: usize, keys: usize) -> Scene {
        let channel = Channel {
            node: 0,
            path: ChannelPath::Translation,
            interpolation: Interpolation::Linear,
            times: (0..keys)
                .map(|k| k as f32 / 100.0)
                .collect::<Vec<_>>()
                .into(),
            values: vec![0.0; 3 * keys].into(),
        };
        Scene {
            nodes: (0..nodes)
                .map(|i| Node {
                    name: format!("n{i}"),
                    ..Node::default()
                })
                .collect(),
            roots: (0..nodes).collect(),
            animations: vec![Animation {
                name: "a".into(),
                channels: vec![channel],
                ..Animation::default()
            }],
            ..Scene::default()
        }
    }

    #[test]
    fn the_poses_compared_are_bounded() {
        // 2 scenes × 2 100 nodes × (1 000 key times + rest) is just over 2²².
        let (nodes, keys) = (2_100, 1_000);
        assert!(2 * nodes * (keys + 1) > MAX_EVALUATIONS);
        let big = scene(nodes, keys);
        match compare(&big, &big) {
            Verdict::Differs(why) => assert!(why.contains("more than the comparison does")),
            _ => panic!("compared beyond the bound"),
        }
        // Just below it, the same scene is its own base.
        let small = scene(nodes, keys - 3);
        assert!(matches!(compare(&small, &small), Verdict::Welds(_)));
    }
}
