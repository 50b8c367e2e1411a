//! Scope tree → typed model, with every validation rule of elem.md §6.
//!
//! Scopes are processed item by item; count checks and index checks run once the whole scope
//! has been seen (the order of keys inside a scope is free). Nothing is allocated from a
//! declared count: lists grow only with the rows actually present.

use std::collections::HashSet;

use crate::error::{clip, Error, Grouper, Warning, WarningKind};
use crate::model::*;
use crate::number::{is_int, parse_f64, Num};
use crate::read::scan;
use crate::read::spans::{syntax, AtomRef, Budget, Data, Entry, Item, Scope, Tree, Vals};
use crate::rules::{known, UV_TAGS};
use crate::runs::Runs;
use crate::tree::{self, Pos};

type Result<T> = std::result::Result<T, Error>;

struct Ctx<'w> {
    warnings: &'w mut Vec<Warning>,
    /// Groups repeated warnings (see [`Warning`]).
    grouper: Grouper,
    /// What is left of the memory budget, for the owned nodes a document keeps.
    budget: Budget,
    node_names: HashSet<String>,
    /// (container name, its material names).
    containers: Vec<(Option<String>, Vec<String>)>,
}

/// Converts a tree into the typed model; the unknown items it keeps are charged to `budget`.
pub(crate) fn elem(tree: Tree<'_>, budget: Budget, warnings: &mut Vec<Warning>) -> Result<Elem> {
    let mut cx = Ctx {
        budget,
        warnings,
        grouper: Grouper::default(),
        node_names: HashSet::new(),
        containers: Vec::new(),
    };
    let mut doc = Elem {
        version: tree.version.0.to_owned(),
        ..Elem::default()
    };
    let mut seen = Seen::default();
    let mut setting = None;
    let mut mesh_data = None;
    let mut hierarchy = None;
    let mut rendering = None;
    let mut animation = None;
    let (items, extra) = cx.sift(tree.items, known::TOP)?;
    doc.extra = extra;
    for item in items {
        match item {
            Item::Scope(s) => match s.tag {
                "Setting" => {
                    seen.once("Setting", s.pos)?;
                    setting = Some(s);
                }
                "MeshDataList" | "MeshDatas" => {
                    seen.once("MeshDataList", s.pos)?;
                    if s.tag == "MeshDatas" {
                        cx.warn(s.pos, WarningKind::MeshDatasTag);
                    }
                    mesh_data = Some(s);
                }
                "HierarchyList" => {
                    seen.once("HierarchyList", s.pos)?;
                    hierarchy = Some(s);
                }
                "RenderingMeshList" => {
                    seen.once("RenderingMeshList", s.pos)?;
                    rendering = Some(s);
                }
                "AnimationList" => {
                    seen.once("AnimationList", s.pos)?;
                    animation = Some(s);
                }
                _ => cx.unknown(Item::Scope(s), known::TOP, &mut doc.extra)?,
            },
            other => cx.unknown(other, known::TOP, &mut doc.extra)?,
        }
    }
    if let Some(s) = setting {
        doc.setting = cx.setting(s)?;
    }
    if let Some(s) = mesh_data {
        doc.mesh_data = Some(cx.mesh_data(s)?);
    }
    if let Some(s) = hierarchy {
        doc.hierarchy = cx.hierarchy(s)?;
    }
    for (_, node) in doc.hierarchy.flatten() {
        if let Some(name) = &node.name {
            cx.node_names.insert(name.clone());
        }
    }
    if let Some(s) = rendering {
        doc.rendering = Some(cx.rendering(s)?);
    }
    if let Some(s) = animation {
        doc.animation = Some(cx.animations(s)?);
    }
    Ok(doc)
}

/// Known names already seen in one scope (rule 16).
#[derive(Default)]
struct Seen(Vec<&'static str>);

impl Seen {
    fn once(&mut self, name: &'static str, pos: Pos) -> Result<()> {
        if self.0.contains(&name) {
            return Err(Error::UnexpectedPart {
                line: pos.line,
                column: pos.column,
                message: format!("`{name}` appears twice in the same scope"),
            });
        }
        self.0.push(name);
        Ok(())
    }
}

/// What a Mesh scope's items give for the checks that need all of them: the declared counts
/// (with their positions), each vertex array's (name, length, position), and the scopes read
/// once the counts are known.
#[derive(Default)]
struct MeshParts<'a> {
    vcount: Option<(u64, Pos)>,
    fcount: Option<(u64, Pos)>,
    vertex_scopes: Vec<(&'static str, usize, Pos)>,
    faces: Option<Scope<'a>>,
    attributes: Option<Scope<'a>>,
    blend_list: Option<Scope<'a>>,
}

fn bad_width(pos: Pos, scope: &str, expected: impl Into<String>, found: usize) -> Error {
    Error::BadRowWidth {
        line: pos.line,
        column: pos.column,
        scope: clip(scope),
        expected: expected.into(),
        found,
    }
}

fn mismatch(pos: Pos, key: &str, declared: u64, what: &str, found: usize) -> Error {
    Error::CountMismatch {
        line: pos.line,
        column: pos.column,
        key: clip(key),
        declared,
        what: what.to_owned(),
        found: found as u64,
    }
}

fn out_of_range(pos: Pos, what: &str, index: i64, len: usize) -> Error {
    Error::IndexOutOfRange {
        line: pos.line,
        column: pos.column,
        what: what.to_owned(),
        index,
        len: len as u64,
    }
}

/// True when every group holds exactly one atom (a plain `a:b:c` row).
fn is_simple(atoms: &[AtomRef<'_>]) -> bool {
    atoms.iter().skip(1).all(|a| a.group_start)
}

/// The number of `:`-separated groups.
fn group_count(atoms: &[AtomRef<'_>]) -> usize {
    atoms
        .iter()
        .enumerate()
        .filter(|(i, a)| *i == 0 || a.group_start)
        .count()
}

/// What [`Ctx::counted_list`] reads: the scope's known names, its count key, the tag of the
/// scopes counted, and how a mismatch names them.
struct CountedList {
    known: &'static [&'static str],
    count_key: &'static str,
    tag: &'static str,
    what: &'static str,
}

/// The data lines of a scope that holds nothing else (see [`Ctx::data_lines`]): its runs
/// (and, for a tree built in code, single lines), counted without a node per line.
#[derive(Default)]
struct DataLines<'a> {
    items: Vec<Item<'a>>,
}

impl<'a> DataLines<'a> {
    fn len(&self) -> usize {
        self.items.iter().map(Item::width).sum()
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `f` with each data line, in order; stops at the first error. Loops rather than
    /// an iterator: the `flat_map`/`chain`/`flatten` it replaces cost a branch ladder per row.
    fn each(&self, mut f: impl FnMut(Data<'a>) -> Result<()>) -> Result<()> {
        for item in &self.items {
            each_line(item, &mut f)?;
        }
        Ok(())
    }
}

/// Calls `f` with each data line of one item of [`DataLines`].
fn each_line<'a>(item: &Item<'a>, mut f: impl FnMut(Data<'a>) -> Result<()>) -> Result<()> {
    match item {
        Item::Data(d) => f(*d),
        Item::Lines(r) => r.each(f),
        Item::Scope(_) | Item::Entry(_) => Ok(()),
    }
}

/// The text of a run of data lines, for the bulk readings of [`scan`].
fn run_text<'a>(item: &Item<'a>) -> Option<&'a str> {
    match item {
        Item::Lines(r) => Some(r.text),
        _ => None,
    }
}

/// A declared count with the position of its key.
type Count = Option<(u64, Pos)>;

impl Ctx<'_> {
    fn warn(&mut self, pos: Pos, kind: WarningKind) {
        self.grouper
            .push(self.warnings, Warning::new(pos.line, pos.column, kind));
    }

    /// Splits a scope's items: returns those whose name the scope knows, in order, and the
    /// others (unknown, each with its warning), in order, as owned nodes for the scope's
    /// `extra`, charged to the budget.
    fn sift<'a>(
        &mut self,
        items: Vec<Item<'a>>,
        known: &[&str],
    ) -> Result<(Vec<Item<'a>>, Vec<tree::Item>)> {
        let wanted = items.iter().filter(|i| known.contains(&i.name())).count();
        let mut out = Vec::with_capacity(wanted);
        let mut extra = Vec::new();
        if let Some(first) = items.iter().find(|i| !known.contains(&i.name())) {
            let pos = first.pos();
            let n = items
                .iter()
                .filter(|i| !known.contains(&i.name()))
                .map(Item::width)
                .sum();
            self.budget.reserve(&mut extra, n, pos.line, pos.column)?;
        }
        for item in items {
            if known.contains(&item.name()) {
                out.push(item);
            } else {
                item.each_line(|line| {
                    let (pos, name) = (line.pos(), clip(line.name()));
                    self.warn(pos, WarningKind::Unknown { name });
                    line.to_owned_into(&mut self.budget, &mut extra)
                })?;
            }
        }
        Ok((out, extra))
    }

    /// Rejects a known name in the wrong form (the scope's loop meets only items whose name
    /// it knows; see [`Self::sift`]); otherwise keeps the item as unknown.
    fn unknown(
        &mut self,
        item: Item<'_>,
        known: &[&str],
        extra: &mut Vec<tree::Item>,
    ) -> Result<()> {
        let pos = item.pos();
        let name = item.name();
        if known.contains(&name) {
            let form = match item {
                Item::Scope(_) => "a scope",
                _ => "a key",
            };
            return Err(Error::UnexpectedPart {
                line: pos.line,
                column: pos.column,
                message: format!("`{}` cannot be {form} here", clip(name)),
            });
        }
        item.each_line(|line| {
            let pos = line.pos();
            self.warn(pos, WarningKind::Unknown { name: clip(name) });
            let mut owned = Vec::with_capacity(1);
            line.to_owned_into(&mut self.budget, &mut owned)?;
            for node in owned {
                self.budget.push(extra, node, pos.line, pos.column)?;
            }
            Ok(())
        })
    }

    /// A scope kept whole (`Blends`, `BlendIndices`), charged to the budget.
    fn keep(&mut self, s: Scope<'_>) -> Result<tree::Scope> {
        let mut owned = Vec::with_capacity(1);
        Item::Scope(s).to_owned_into(&mut self.budget, &mut owned)?;
        match owned.pop() {
            Some(tree::Item::Scope(s)) => Ok(s),
            _ => Ok(tree::Scope::default()),
        }
    }

    // ---- atoms and entries -------------------------------------------------------------

    fn num(&mut self, atom: &AtomRef<'_>) -> Result<f64> {
        let bad = || Error::BadNumber {
            line: atom.pos.line,
            column: atom.pos.column,
            expected: "a number",
            found: clip(atom.text),
        };
        if atom.quoted {
            return Err(bad());
        }
        match parse_f64(atom.text) {
            Some(Num::Finite(v)) => Ok(v),
            Some(Num::NonFinite(v)) => {
                self.warn(
                    atom.pos,
                    WarningKind::NonFinite {
                        text: clip(atom.text),
                    },
                );
                Ok(v)
            }
            None => Err(bad()),
        }
    }

    fn int(&self, atom: &AtomRef<'_>) -> Result<i64> {
        let bad = || Error::BadNumber {
            line: atom.pos.line,
            column: atom.pos.column,
            expected: "an integer",
            found: clip(atom.text),
        };
        if atom.quoted || !is_int(atom.text) {
            return Err(bad());
        }
        atom.text.parse::<i64>().map_err(|_| bad())
    }

    /// An index (≥ 0, fits u32) below `len`.
    fn index(&self, atom: &AtomRef<'_>, what: &str, len: usize) -> Result<u32> {
        let v = self.int(atom)?;
        match u32::try_from(v) {
            Ok(i) if (i as usize) < len => Ok(i),
            _ => Err(out_of_range(atom.pos, what, v, len)),
        }
    }

    fn single<'a>(&self, e: &Entry<'a>) -> Result<AtomRef<'a>> {
        match e.values.atoms()?.as_slice() {
            [one] => Ok(*one),
            atoms => Err(bad_width(e.pos, e.key, "1 value", atoms.len())),
        }
    }

    fn string(&self, e: Entry<'_>) -> Result<String> {
        Ok(self.single(&e)?.text.to_owned())
    }

    fn int_entry(&self, e: &Entry<'_>) -> Result<i64> {
        self.int(&self.single(e)?)
    }

    fn count(&self, e: &Entry<'_>) -> Result<(u64, Pos)> {
        let v = self.int_entry(e)?;
        let c = u64::try_from(v).map_err(|_| Error::BadCount {
            line: e.pos.line,
            column: e.pos.column,
            key: clip(e.key),
            value: v,
        })?;
        Ok((c, e.pos))
    }

    fn f64_entry(&mut self, e: &Entry<'_>) -> Result<f64> {
        let atom = self.single(e)?;
        self.num(&atom)
    }

    fn bool_entry(&mut self, e: &Entry<'_>) -> Result<bool> {
        let atom = self.single(e)?;
        match atom.text {
            "True" if !atom.quoted => Ok(true),
            "False" if !atom.quoted => Ok(false),
            t if !atom.quoted
                && (t.eq_ignore_ascii_case("true") || t.eq_ignore_ascii_case("false")) =>
            {
                self.warn(atom.pos, WarningKind::BoolCase { text: t.to_owned() });
                Ok(t.eq_ignore_ascii_case("true"))
            }
            t => Err(syntax(
                atom.pos.line,
                atom.pos.column,
                format!("expected True or False, found {:?}", clip(t)),
            )),
        }
    }

    /// A `a:b:c` row of exactly `N` numbers: read straight from the line when it is plain
    /// (see [`scan`]), otherwise atom by atom, which gives the exact error or warning.
    fn row<const N: usize>(&mut self, values: &Vals<'_>, pos: Pos, what: &str) -> Result<[f64; N]> {
        if let Some(row) = values.text().and_then(scan::row::<N>) {
            return Ok(row);
        }
        let atoms = values.atoms()?;
        if atoms.len() != N || !is_simple(&atoms) {
            return Err(bad_width(
                pos,
                what,
                format!("{N} values separated by `:`"),
                group_count(&atoms),
            ));
        }
        let mut out = [0.0; N];
        for (slot, atom) in out.iter_mut().zip(&atoms) {
            *slot = self.num(atom)?;
        }
        Ok(out)
    }

    /// A row of any width (UV animation keys).
    fn raw_row(&mut self, values: &Vals<'_>, pos: Pos, what: &str) -> Result<Vec<f64>> {
        let atoms = values.atoms()?;
        if !is_simple(&atoms) {
            return Err(bad_width(
                pos,
                what,
                "values separated by `:`",
                group_count(&atoms),
            ));
        }
        atoms.iter().map(|a| self.num(a)).collect()
    }

    /// The data lines of a scope that may hold nothing else.
    fn data_lines<'a>(&self, s: Scope<'a>) -> Result<DataLines<'a>> {
        let tag = s.tag;
        if let Some(other) = s
            .items
            .iter()
            .find(|i| !matches!(i, Item::Data(_) | Item::Lines(_)))
        {
            let pos = other.pos();
            return Err(Error::UnexpectedPart {
                line: pos.line,
                column: pos.column,
                message: format!(
                    "`{tag}` holds only data lines, found `{}`",
                    clip(other.name())
                ),
            });
        }
        Ok(DataLines { items: s.items })
    }

    fn rows<const N: usize>(&mut self, s: Scope<'_>) -> Result<Vec<[f64; N]>> {
        let tag = s.tag;
        let lines = self.data_lines(s)?;
        // Exact: every line is a row (or an error).
        let mut out = Vec::with_capacity(lines.len());
        for item in &lines.items {
            if run_text(item).is_some_and(|t| scan::rows::<N>(t, &mut out).is_some()) {
                continue;
            }
            // Not plain: line by line, which gives the exact error or warning.
            each_line(item, |d| {
                out.push(self.row::<N>(&d.values, d.pos, tag)?);
                Ok(())
            })?;
        }
        Ok(out)
    }

    fn raw_rows(&mut self, s: Scope<'_>) -> Result<(Vec<Vec<f64>>, Vec<Pos>)> {
        let tag = s.tag;
        let lines = self.data_lines(s)?;
        let mut out = Vec::new();
        let mut pos = Vec::new();
        lines.each(|d| {
            out.push(self.raw_row(&d.values, d.pos, tag)?);
            pos.push(d.pos);
            Ok(())
        })?;
        Ok((out, pos))
    }

    fn strings(&self, s: Scope<'_>) -> Result<Vec<String>> {
        let tag = s.tag;
        let mut buf = Vec::new();
        let mut out = Vec::new();
        self.data_lines(s)?.each(|d| {
            d.values.split_into(&mut buf)?;
            match buf.as_slice() {
                [one] => out.push(one.text.to_owned()),
                atoms => return Err(bad_width(d.pos, tag, "1 string", atoms.len())),
            }
            Ok(())
        })?;
        Ok(out)
    }

    fn time_keys(&mut self, s: Scope<'_>) -> Result<Vec<f64>> {
        let pos = s.pos;
        let keys: Vec<f64> = self.rows::<1>(s)?.into_iter().map(|[t]| t).collect();
        let bad_range = keys.iter().any(|t| !(0.0..=1.0).contains(t));
        let decreasing = keys.windows(2).any(|w| matches!(w, [a, b] if b < a));
        if bad_range || decreasing {
            self.warn(pos, WarningKind::TimeKeys);
        }
        Ok(keys)
    }

    /// A scope that holds `Key=n` and n `Tag { … }` scopes, in any order (and unknown items,
    /// kept): reads each scope with `read`, then checks the declared count against the scopes
    /// present (rules 9/10). The count never sizes anything: the list grows only with the
    /// scopes actually read.
    fn counted_list<'a, T>(
        &mut self,
        s: Scope<'a>,
        list: &CountedList,
        mut read: impl FnMut(&mut Self, Scope<'a>) -> Result<T>,
    ) -> Result<(Vec<T>, Vec<tree::Item>)> {
        let mut out = Vec::new();
        let mut seen = Seen::default();
        let mut count = None;
        let (items, mut extra) = self.sift(s.items, list.known)?;
        for item in items {
            match item {
                Item::Entry(e) if e.key == list.count_key => {
                    seen.once(list.count_key, e.pos)?;
                    count = Some(self.count(&e)?);
                }
                Item::Scope(sc) if sc.tag == list.tag => out.push(read(self, sc)?),
                other => self.unknown(other, list.known, &mut extra)?,
            }
        }
        self.check_count(count, list.count_key, out.len(), list.what, s.pos)?;
        Ok((out, extra))
    }

    /// Rule 9/10 for a count whose data is not optional.
    fn check_count(
        &mut self,
        declared: Count,
        key: &'static str,
        found: usize,
        what: &str,
        scope_pos: Pos,
    ) -> Result<()> {
        match declared {
            Some((d, pos)) if d != found as u64 => Err(mismatch(pos, key, d, what, found)),
            Some(_) => Ok(()),
            None => {
                if found > 0 {
                    self.warn(scope_pos, WarningKind::CountInferred { key });
                }
                Ok(())
            }
        }
    }

    fn resolve(&mut self, pos: Pos, key: &'static str, name: &Option<String>, ok: bool) {
        if let (Some(name), false) = (name, ok) {
            self.warn(
                pos,
                WarningKind::UnresolvedName {
                    key,
                    name: clip(name),
                },
            );
        }
    }

    // ---- scopes ------------------------------------------------------------------------

    fn setting(&mut self, s: Scope<'_>) -> Result<Setting> {
        let mut out = Setting::default();
        let mut seen = Seen::default();
        let (items, extra) = self.sift(s.items, known::SETTING)?;
        out.extra = extra;
        for item in items {
            match item {
                Item::Entry(e) => match e.key {
                    "ElfreinaSoftVersion" | "SoftVersion" => {
                        seen.once("ElfreinaSoftVersion", e.pos)?;
                        out.soft_version = Some(self.f64_entry(&e)?);
                    }
                    "ElfreinaBetaVersion" => {
                        seen.once("ElfreinaBetaVersion", e.pos)?;
                        out.beta_version = Some(self.int_entry(&e)?);
                    }
                    "LoadType" => {
                        seen.once("LoadType", e.pos)?;
                        out.load_type = Some(self.string(e)?);
                    }
                    "IsRightHand" => {
                        seen.once("IsRightHand", e.pos)?;
                        out.is_right_hand = Some(self.bool_entry(&e)?);
                    }
                    _ => self.unknown(Item::Entry(e), known::SETTING, &mut out.extra)?,
                },
                other => self.unknown(other, known::SETTING, &mut out.extra)?,
            }
        }
        Ok(out)
    }

    fn mesh_data(&mut self, s: Scope<'_>) -> Result<MeshDataList> {
        let list = CountedList {
            known: known::MESH_DATA,
            count_key: "MeshContainerCount",
            tag: "MeshContainer",
            what: "MeshContainer scopes",
        };
        let (containers, extra) = self.counted_list(s, &list, Self::container)?;
        Ok(MeshDataList { containers, extra })
    }

    fn container(&mut self, s: Scope<'_>) -> Result<MeshContainer> {
        let mut c = MeshContainer::default();
        let mut seen = Seen::default();
        let mut bone_count = None;
        let mut mesh_count = None;
        let mut mesh_scopes = Vec::new();
        let mut matrices_pos = s.pos;
        let (items, extra) = self.sift(s.items, known::CONTAINER)?;
        c.extra = extra;
        for item in items {
            match item {
                Item::Entry(e) => match e.key {
                    "Name" => {
                        seen.once("Name", e.pos)?;
                        c.name = Some(self.string(e)?);
                    }
                    "BoneCount" => {
                        seen.once("BoneCount", e.pos)?;
                        bone_count = Some(self.count(&e)?);
                    }
                    "MeshCount" => {
                        seen.once("MeshCount", e.pos)?;
                        mesh_count = Some(self.count(&e)?);
                    }
                    _ => self.unknown(Item::Entry(e), known::CONTAINER, &mut c.extra)?,
                },
                Item::Scope(sc) => match sc.tag {
                    "VertexFormat" => {
                        seen.once("VertexFormat", sc.pos)?;
                        c.vertex_format = self.strings(sc)?;
                    }
                    "BoneNames" => {
                        seen.once("BoneNames", sc.pos)?;
                        c.bone_names = self.strings(sc)?;
                    }
                    "OffsetMatrices" => {
                        seen.once("OffsetMatrices", sc.pos)?;
                        matrices_pos = sc.pos;
                        c.offset_matrices = self.rows::<16>(sc)?;
                    }
                    "Materials" => {
                        seen.once("Materials", sc.pos)?;
                        c.materials = Some(self.materials(sc)?);
                    }
                    "Mesh" => mesh_scopes.push(sc),
                    _ => self.unknown(Item::Scope(sc), known::CONTAINER, &mut c.extra)?,
                },
                other => self.unknown(other, known::CONTAINER, &mut c.extra)?,
            }
        }
        let (names, matrices) = (c.bone_names.len(), c.offset_matrices.len());
        match bone_count {
            Some((b, pos)) => {
                if names as u64 != b {
                    return Err(mismatch(pos, "BoneCount", b, "BoneNames", names));
                }
                if matrices as u64 != b {
                    return Err(mismatch(pos, "BoneCount", b, "OffsetMatrices", matrices));
                }
            }
            None => {
                if names > 0 && matrices > 0 && names != matrices {
                    return Err(mismatch(
                        matrices_pos,
                        "BoneNames",
                        names as u64,
                        "OffsetMatrices",
                        matrices,
                    ));
                }
                if names.max(matrices) > 0 {
                    self.warn(s.pos, WarningKind::CountInferred { key: "BoneCount" });
                }
            }
        }
        self.check_count(
            mesh_count,
            "MeshCount",
            mesh_scopes.len(),
            "Mesh scopes",
            s.pos,
        )?;
        let materials = c.material_list().len();
        let bones = c.bone_count();
        for ms in mesh_scopes {
            let mesh = self.mesh(ms, materials, &c.bone_names, bones)?;
            c.meshes.push(mesh);
        }
        self.containers.push((
            c.name.clone(),
            c.material_list()
                .iter()
                .filter_map(|m| m.name.clone())
                .collect(),
        ));
        Ok(c)
    }

    fn materials(&mut self, s: Scope<'_>) -> Result<Materials> {
        let list = CountedList {
            known: known::MATERIALS,
            count_key: "MaterialCount",
            tag: "Material",
            what: "Material scopes",
        };
        let (materials, extra) = self.counted_list(s, &list, Self::material)?;
        Ok(Materials { materials, extra })
    }

    fn material(&mut self, s: Scope<'_>) -> Result<Material> {
        let mut m = Material::default();
        let mut seen = Seen::default();
        let (items, extra) = self.sift(s.items, known::MATERIAL)?;
        m.extra = extra;
        for item in items {
            match item {
                Item::Entry(e) => match e.key {
                    "Name" => {
                        seen.once("Name", e.pos)?;
                        m.name = Some(self.string(e)?);
                    }
                    "Diffuse" => {
                        seen.once("Diffuse", e.pos)?;
                        m.diffuse = Some(self.row::<4>(&e.values, e.pos, "Diffuse")?);
                    }
                    "Ambient" => {
                        seen.once("Ambient", e.pos)?;
                        m.ambient = Some(self.row::<4>(&e.values, e.pos, "Ambient")?);
                    }
                    "Emissive" => {
                        seen.once("Emissive", e.pos)?;
                        m.emissive = Some(self.row::<4>(&e.values, e.pos, "Emissive")?);
                    }
                    "Specular" => {
                        seen.once("Specular", e.pos)?;
                        m.specular = Some(self.row::<4>(&e.values, e.pos, "Specular")?);
                    }
                    "SpecularSharpness" => {
                        seen.once("SpecularSharpness", e.pos)?;
                        m.specular_sharpness = Some(self.f64_entry(&e)?);
                    }
                    "TextureFilename" => {
                        seen.once("TextureFilename", e.pos)?;
                        m.texture_filename = Some(self.string(e)?);
                    }
                    _ => self.unknown(Item::Entry(e), known::MATERIAL, &mut m.extra)?,
                },
                other => self.unknown(other, known::MATERIAL, &mut m.extra)?,
            }
        }
        Ok(m)
    }

    fn mesh(
        &mut self,
        s: Scope<'_>,
        materials: usize,
        bone_names: &[String],
        bones: usize,
    ) -> Result<Mesh> {
        let mut m = Mesh::default();
        let (items, extra) = self.sift(s.items, known::MESH)?;
        m.extra = extra;
        // Counts and indices are checked once the whole scope is seen (its order is free).
        let parts = self.mesh_items(items, &mut m)?;
        let v = self.mesh_vertex_count(&parts, &m, s.pos)?;
        self.mesh_faces(parts.faces, parts.fcount, v, &mut m, s.pos)?;
        self.mesh_attributes(parts.attributes, parts.fcount, materials, &mut m, s.pos)?;
        if let Some(sc) = parts.blend_list {
            m.blend_list = self.blend_list(sc, v, bone_names, bones)?;
        }
        Ok(m)
    }

    /// A Mesh scope's items, in file order: names, counts and vertex arrays onto `m`; what
    /// needs the counts (faces, attributes, skinning) is returned for later.
    fn mesh_items<'a>(&mut self, items: Vec<Item<'a>>, m: &mut Mesh) -> Result<MeshParts<'a>> {
        let mut seen = Seen::default();
        let mut parts = MeshParts::default();
        for item in items {
            match item {
                Item::Entry(e) => match e.key {
                    "Name" => {
                        seen.once("Name", e.pos)?;
                        m.name = Some(self.string(e)?);
                    }
                    "VertexCount" => {
                        seen.once("VertexCount", e.pos)?;
                        parts.vcount = Some(self.count(&e)?);
                    }
                    "FaceCount" => {
                        seen.once("FaceCount", e.pos)?;
                        parts.fcount = Some(self.count(&e)?);
                    }
                    _ => self.unknown(Item::Entry(e), known::MESH, &mut m.extra)?,
                },
                Item::Scope(sc) => self.mesh_scope(sc, m, &mut seen, &mut parts)?,
                other => self.unknown(other, known::MESH, &mut m.extra)?,
            }
        }
        Ok(parts)
    }

    /// One scope of a Mesh: a vertex array (read now, its length noted for the count check),
    /// a scope kept for later (`VertexIndices`, `Attributes`, `BlendList`), a kept unknown one.
    fn mesh_scope<'a>(
        &mut self,
        sc: Scope<'a>,
        m: &mut Mesh,
        seen: &mut Seen,
        parts: &mut MeshParts<'a>,
    ) -> Result<()> {
        let uv_set = sc
            .tag
            .strip_prefix("Texture")
            .and_then(|t| t.strip_suffix("UV"))
            .and_then(|n| match n {
                "" => Some(0),
                _ => UV_TAGS.iter().position(|t| *t == sc.tag),
            });
        let pos = sc.pos;
        match (sc.tag, uv_set) {
            (_, Some(set)) => {
                let tag = UV_TAGS.get(set).copied().unwrap_or("TextureUV");
                seen.once(tag, pos)?;
                let rows = self.rows::<2>(sc)?;
                parts.vertex_scopes.push((tag, rows.len(), pos));
                if let Some(slot) = m.uv_sets.get_mut(set) {
                    *slot = rows;
                }
            }
            ("Positions", _) => {
                seen.once("Positions", pos)?;
                m.positions = self.rows::<3>(sc)?;
                parts
                    .vertex_scopes
                    .push(("Positions", m.positions.len(), pos));
            }
            ("Normals", _) => {
                seen.once("Normals", pos)?;
                m.normals = self.rows::<3>(sc)?;
                parts.vertex_scopes.push(("Normals", m.normals.len(), pos));
            }
            ("Diffuse", _) => {
                seen.once("Diffuse", pos)?;
                m.diffuse = self.rows::<4>(sc)?;
                parts.vertex_scopes.push(("Diffuse", m.diffuse.len(), pos));
            }
            ("BlendList", _) => {
                seen.once("BlendList", pos)?;
                parts.blend_list = Some(sc);
            }
            ("Blends", _) => {
                seen.once("Blends", pos)?;
                self.warn(
                    pos,
                    WarningKind::Unknown {
                        name: "Blends".into(),
                    },
                );
                m.blends = Some(self.keep(sc)?);
            }
            ("BlendIndices", _) => {
                seen.once("BlendIndices", pos)?;
                self.warn(
                    pos,
                    WarningKind::Unknown {
                        name: "BlendIndices".into(),
                    },
                );
                m.blend_indices = Some(self.keep(sc)?);
            }
            ("VertexIndices", _) => {
                seen.once("VertexIndices", pos)?;
                parts.faces = Some(sc);
            }
            ("Attributes", _) => {
                seen.once("Attributes", pos)?;
                parts.attributes = Some(sc);
            }
            _ => self.unknown(Item::Scope(sc), known::MESH, &mut m.extra)?,
        }
        Ok(())
    }

    /// The vertex count: `VertexCount` (else the Positions', with a warning), which every
    /// vertex array present must have; returns the number of positions.
    fn mesh_vertex_count(&mut self, parts: &MeshParts<'_>, m: &Mesh, at: Pos) -> Result<usize> {
        let v = match parts.vcount {
            Some((v, _)) => v,
            None => {
                if !m.positions.is_empty() {
                    self.warn(at, WarningKind::CountInferred { key: "VertexCount" });
                }
                m.positions.len() as u64
            }
        };
        if m.positions.is_empty() && v > 0 {
            return Err(Error::MissingPart {
                line: at.line,
                column: at.column,
                message: format!("a Mesh with VertexCount={v} has no Positions"),
            });
        }
        for &(what, found, pos) in &parts.vertex_scopes {
            let optional = what != "Positions";
            if found as u64 != v && !(optional && found == 0) {
                let pos = parts.vcount.map_or(pos, |(_, p)| p);
                return Err(mismatch(pos, "VertexCount", v, what, found));
            }
        }
        Ok(m.positions.len())
    }

    /// `VertexIndices` (`faces`, may be absent) onto `m`, checked against `FaceCount` and the
    /// `v` vertices.
    fn mesh_faces(
        &mut self,
        faces: Option<Scope<'_>>,
        fcount: Option<(u64, Pos)>,
        v: usize,
        m: &mut Mesh,
        at: Pos,
    ) -> Result<()> {
        let face_rows = match faces {
            Some(sc) => self.data_lines(sc)?,
            None => DataLines::default(),
        };
        self.check_count(fcount, "FaceCount", face_rows.len(), "VertexIndices", at)?;
        // Every face has at least three corners, each backed by its line: triangles need
        // no growth. (The sizes are runs, mostly one.)
        m.face_indices
            .reserve_exact(face_rows.len().saturating_mul(3));
        for item in &face_rows.items {
            let (indices, sizes) = (&mut m.face_indices, &mut m.face_sizes);
            if run_text(item).is_some_and(|t| scan::faces(t, v, indices, sizes).is_some()) {
                continue;
            }
            each_line(item, |d| self.face(&d, v, m))?;
        }
        Ok(())
    }

    /// `Attributes` (optional; an empty scope is the same as none): one material index per
    /// face; a mesh with faces but none gets a warning.
    fn mesh_attributes(
        &mut self,
        attributes: Option<Scope<'_>>,
        fcount: Option<(u64, Pos)>,
        materials: usize,
        m: &mut Mesh,
        at: Pos,
    ) -> Result<()> {
        let f = m.face_sizes.len();
        if let Some(sc) = attributes {
            let lines = self.data_lines(sc)?;
            if !lines.is_empty() && lines.len() != f {
                let pos = fcount.map_or(at, |(_, p)| p);
                return Err(mismatch(
                    pos,
                    "FaceCount",
                    f as u64,
                    "Attributes",
                    lines.len(),
                ));
            }
            for item in &lines.items {
                let out = &mut m.attributes;
                if run_text(item).is_some_and(|t| scan::indices(t, materials, out).is_some()) {
                    continue;
                }
                self.attributes(item, materials, &mut m.attributes)?;
            }
        }
        if m.attributes.is_empty() && f > 0 {
            self.warn(at, WarningKind::NoAttributes);
        }
        Ok(())
    }

    /// The `Attributes` lines of one item onto `out`, line by line (plain ones read straight
    /// from the line, see [`scan`]; others atom by atom, which gives the exact error).
    fn attributes(&mut self, item: &Item<'_>, materials: usize, out: &mut Runs) -> Result<()> {
        each_line(item, |d| {
            let fast = d.values.text().and_then(scan::index);
            if let Some(i) = fast.filter(|&i| (i as usize) < materials) {
                out.push(i);
                return Ok(());
            }
            match d.values.atoms()?.as_slice() {
                [a] => out.push(self.index(a, "material index", materials)?),
                atoms => return Err(bad_width(d.pos, "Attributes", "1 value", atoms.len())),
            }
            Ok(())
        })
    }

    /// One `n,i0:i1:…` line of `VertexIndices` onto the mesh: read straight from the line
    /// when it is plain and in range (see [`scan`]), otherwise atom by atom.
    fn face(&mut self, d: &Data<'_>, v: usize, m: &mut Mesh) -> Result<()> {
        if let Some(text) = d.values.text() {
            let start = m.face_indices.len();
            if let Some(n) = scan::face(text, &mut m.face_indices) {
                let corners = m.face_indices.get(start..).unwrap_or_default();
                if corners.iter().all(|&i| (i as usize) < v) {
                    m.face_sizes.push(n);
                    return Ok(());
                }
                m.face_indices.truncate(start);
            }
        }
        let atoms = d.values.atoms()?;
        let shape_ok = atoms.len() >= 2
            && atoms.get(1).is_some_and(|a| !a.group_start)
            && atoms.iter().skip(2).all(|a| a.group_start);
        let expected = "`n,i0:i1:…` with n ≥ 3 indices";
        let n_atom = atoms
            .first()
            .filter(|_| shape_ok)
            .ok_or_else(|| bad_width(d.pos, "VertexIndices", expected, group_count(&atoms)))?;
        let n = self.int(n_atom)?;
        let corners = atoms.len() - 1;
        if n < 3 || n != corners as i64 {
            return Err(bad_width(d.pos, "VertexIndices", expected, corners));
        }
        m.face_sizes.push(corners as u32);
        for atom in atoms.iter().skip(1) {
            m.face_indices.push(self.index(atom, "vertex index", v)?);
        }
        Ok(())
    }

    fn blend_list(
        &mut self,
        s: Scope<'_>,
        vertices: usize,
        bone_names: &[String],
        bones: usize,
    ) -> Result<BlendList> {
        let mut out = BlendList::default();
        let (items, extra) = self.sift(s.items, known::BLEND_LIST)?;
        out.extra = extra;
        for item in items {
            match item {
                Item::Scope(p) if p.tag == "BlendPart" => {
                    let part = self.blend_part(p, vertices, bone_names, bones)?;
                    out.parts.push(part);
                }
                other => self.unknown(other, known::BLEND_LIST, &mut out.extra)?,
            }
        }
        // Rule 20.
        let mut influence: Vec<(u32, f64)> = vec![(0, 0.0); vertices];
        for b in out.parts.iter().flat_map(|p| &p.vertex_blends) {
            if let Some(slot) = influence.get_mut(b.vertex as usize) {
                slot.0 += 1;
                slot.1 += b.weight;
            }
        }
        for (vertex, (n, sum)) in influence.into_iter().enumerate() {
            let vertex = vertex as u32;
            if n > 4 {
                self.warn(s.pos, WarningKind::TooManyInfluences { vertex });
            }
            if n > 0 && (sum - 1.0).abs() > 1e-3 {
                self.warn(s.pos, WarningKind::WeightSum { vertex });
            }
        }
        Ok(out)
    }

    fn blend_part(
        &mut self,
        s: Scope<'_>,
        vertices: usize,
        bone_names: &[String],
        bones: usize,
    ) -> Result<BlendPart> {
        let mut p = BlendPart::default();
        let mut seen = Seen::default();
        let mut name_pos = s.pos;
        let (items, extra) = self.sift(s.items, known::BLEND_PART)?;
        p.extra = extra;
        for item in items {
            match item {
                Item::Entry(e) if e.key == "BoneName" => {
                    seen.once("BoneName", e.pos)?;
                    name_pos = e.pos;
                    p.bone_name = Some(self.string(e)?);
                }
                Item::Entry(e) if e.key == "TransformIndex" => {
                    seen.once("TransformIndex", e.pos)?;
                    p.transform_index =
                        Some(self.index(&self.single(&e)?, "TransformIndex", bones)?);
                }
                Item::Scope(sc) if sc.tag == "VertexBlend" => {
                    seen.once("VertexBlend", sc.pos)?;
                    let mut buf = Vec::new();
                    self.data_lines(sc)?.each(|d| {
                        d.values.split_into(&mut buf)?;
                        let atoms = buf.as_slice();
                        let (Some(vertex), Some(weight), 2) =
                            (atoms.first(), atoms.get(1), atoms.len())
                        else {
                            return Err(bad_width(
                                d.pos,
                                "VertexBlend",
                                "`vertex,weight`",
                                atoms.len(),
                            ));
                        };
                        if weight.group_start {
                            return Err(bad_width(
                                d.pos,
                                "VertexBlend",
                                "`vertex,weight`",
                                atoms.len(),
                            ));
                        }
                        let vertex = self.index(vertex, "vertex index", vertices)?;
                        let weight = self.num(weight)?;
                        p.vertex_blends.push(VertexBlend { vertex, weight });
                        Ok(())
                    })?;
                }
                other => self.unknown(other, known::BLEND_PART, &mut p.extra)?,
            }
        }
        if let (Some(name), Some(i)) = (&p.bone_name, p.transform_index) {
            if bone_names.get(i as usize).is_some_and(|b| b != name) {
                self.warn(name_pos, WarningKind::BoneNameMismatch { name: clip(name) });
            }
        }
        Ok(p)
    }

    fn hierarchy(&mut self, s: Scope<'_>) -> Result<HierarchyList> {
        let mut out = HierarchyList::default();
        let (items, extra) = self.sift(s.items, known::HIERARCHY)?;
        out.extra = extra;
        for item in items {
            match item {
                Item::Scope(n) if n.tag == "Node" => out.nodes.push(self.node(n)?),
                other => self.unknown(other, known::HIERARCHY, &mut out.extra)?,
            }
        }
        Ok(out)
    }

    /// Recursive, but the tree is at most [`crate::MAX_DEPTH`] deep.
    fn node(&mut self, s: Scope<'_>) -> Result<Node> {
        let mut n = Node::default();
        let mut seen = Seen::default();
        let (items, extra) = self.sift(s.items, known::NODE)?;
        n.extra = extra;
        for item in items {
            match item {
                Item::Entry(e) if e.key == "NodeName" => {
                    seen.once("NodeName", e.pos)?;
                    n.name = Some(self.string(e)?);
                }
                Item::Entry(e) if e.key == "InitPostureMatrix" => {
                    seen.once("InitPostureMatrix", e.pos)?;
                    n.init_posture = Some(self.row::<16>(&e.values, e.pos, "InitPostureMatrix")?);
                }
                Item::Scope(c) if c.tag == "Node" => n.children.push(self.node(c)?),
                other => self.unknown(other, known::NODE, &mut n.extra)?,
            }
        }
        Ok(n)
    }

    fn rendering(&mut self, s: Scope<'_>) -> Result<RenderingMeshList> {
        let list = CountedList {
            known: known::RENDERING,
            count_key: "RenderingMeshCount",
            tag: "RenderingMesh",
            what: "RenderingMesh scopes",
        };
        let (meshes, extra) = self.counted_list(s, &list, Self::rendering_mesh)?;
        Ok(RenderingMeshList { meshes, extra })
    }

    fn rendering_mesh(&mut self, s: Scope<'_>) -> Result<RenderingMesh> {
        let mut r = RenderingMesh::default();
        let mut seen = Seen::default();
        let mut count = None;
        let mut names_pos = Vec::new();
        let (items, extra) = self.sift(s.items, known::RENDERING_MESH)?;
        r.extra = extra;
        for item in items {
            match item {
                Item::Entry(e) if e.key == "RenderingMeshName" => {
                    seen.once("RenderingMeshName", e.pos)?;
                    let pos = e.pos;
                    r.name = Some(self.string(e)?);
                    let ok = self.containers.iter().any(|(n, _)| *n == r.name);
                    self.resolve(pos, "RenderingMeshName", &r.name, ok);
                }
                Item::Entry(e) if e.key == "HierarchyNamesCount" => {
                    seen.once("HierarchyNamesCount", e.pos)?;
                    count = Some(self.count(&e)?);
                }
                Item::Scope(sc) if sc.tag == "HierarchyNames" => {
                    seen.once("HierarchyNames", sc.pos)?;
                    names_pos = sc.items.iter().map(Item::pos).collect();
                    r.hierarchy_names = self.strings(sc)?;
                }
                other => self.unknown(other, known::RENDERING_MESH, &mut r.extra)?,
            }
        }
        self.check_count(
            count,
            "HierarchyNamesCount",
            r.hierarchy_names.len(),
            "HierarchyNames",
            s.pos,
        )?;
        for (name, pos) in r.hierarchy_names.iter().zip(names_pos) {
            if !self.node_names.contains(name) {
                self.warn(
                    pos,
                    WarningKind::UnresolvedName {
                        key: "HierarchyNames",
                        name: clip(name),
                    },
                );
            }
        }
        Ok(r)
    }

    fn animations(&mut self, s: Scope<'_>) -> Result<AnimationList> {
        let list = CountedList {
            known: known::ANIMATIONS,
            count_key: "AnimationCount",
            tag: "AnimationData",
            what: "AnimationData scopes",
        };
        let (animations, extra) = self.counted_list(s, &list, Self::animation)?;
        Ok(AnimationList { animations, extra })
    }

    fn animation(&mut self, s: Scope<'_>) -> Result<AnimationData> {
        let mut a = AnimationData::default();
        let mut seen = Seen::default();
        let (items, extra) = self.sift(s.items, known::ANIMATION)?;
        a.extra = extra;
        for item in items {
            match item {
                Item::Entry(e) => match e.key {
                    "AnimationName" => {
                        seen.once("AnimationName", e.pos)?;
                        a.name = Some(self.string(e)?);
                    }
                    "AnimationTime" => {
                        seen.once("AnimationTime", e.pos)?;
                        a.time_ms = Some(self.int_entry(&e)?);
                    }
                    "FrameParSecond" => {
                        seen.once("FrameParSecond", e.pos)?;
                        a.frames_per_second = Some(self.int_entry(&e)?);
                    }
                    "TransitionTime" => {
                        seen.once("TransitionTime", e.pos)?;
                        a.transition_time = Some(self.int_entry(&e)?);
                    }
                    "Priority" => {
                        seen.once("Priority", e.pos)?;
                        a.priority = Some(self.int_entry(&e)?);
                    }
                    "Loop" => {
                        seen.once("Loop", e.pos)?;
                        a.looped = Some(self.bool_entry(&e)?);
                    }
                    _ => self.unknown(Item::Entry(e), known::ANIMATION, &mut a.extra)?,
                },
                Item::Scope(sc) if sc.tag == "BoneAnimation" => {
                    seen.once("BoneAnimation", sc.pos)?;
                    a.bone_animation = self.bone_animation(sc)?;
                }
                Item::Scope(sc) if sc.tag == "UVAnimation" => {
                    seen.once("UVAnimation", sc.pos)?;
                    a.uv_animation = self.uv_animation(sc)?;
                }
                other => self.unknown(other, known::ANIMATION, &mut a.extra)?,
            }
        }
        Ok(a)
    }

    fn bone_animation(&mut self, s: Scope<'_>) -> Result<BoneAnimation> {
        let (time_keys, parts, extra) = self.keyed_animation(s, Self::bone_part)?;
        Ok(BoneAnimation {
            time_keys,
            parts,
            extra,
        })
    }

    /// A `BoneAnimation` or `UvAnimation` scope: its one `TimeKeys`, its `AnimationPart`s
    /// (read by `part`) and its unknown items. The two scopes differ only in their parts.
    fn keyed_animation<'a, P>(
        &mut self,
        s: Scope<'a>,
        part: fn(&mut Self, Scope<'a>) -> Result<P>,
    ) -> Result<(Vec<f64>, Vec<P>, Vec<tree::Item>)> {
        let (mut time_keys, mut parts) = (Vec::new(), Vec::new());
        let mut seen = Seen::default();
        let (items, mut extra) = self.sift(s.items, known::KEYED_ANIMATION)?;
        for item in items {
            match item {
                Item::Scope(sc) if sc.tag == "TimeKeys" => {
                    seen.once("TimeKeys", sc.pos)?;
                    time_keys = self.time_keys(sc)?;
                }
                Item::Scope(sc) if sc.tag == "AnimationPart" => parts.push(part(self, sc)?),
                other => self.unknown(other, known::KEYED_ANIMATION, &mut extra)?,
            }
        }
        Ok((time_keys, parts, extra))
    }

    fn bone_part(&mut self, s: Scope<'_>) -> Result<BoneAnimationPart> {
        let mut p = BoneAnimationPart::default();
        let mut seen = Seen::default();
        let mut lists: Vec<(&'static str, usize, Pos)> = Vec::new();
        let (items, extra) = self.sift(s.items, known::BONE_PART)?;
        p.extra = extra;
        for item in items {
            match item {
                Item::Entry(e) => match e.key {
                    "NodeName" => {
                        seen.once("NodeName", e.pos)?;
                        let pos = e.pos;
                        p.node_name = Some(self.string(e)?);
                        let ok = p
                            .node_name
                            .as_ref()
                            .is_some_and(|n| self.node_names.contains(n));
                        self.resolve(pos, "NodeName", &p.node_name, ok);
                    }
                    "TransitionTime" => {
                        seen.once("TransitionTime", e.pos)?;
                        p.transition_time = Some(self.int_entry(&e)?);
                    }
                    "InterpolationType" => {
                        seen.once("InterpolationType", e.pos)?;
                        p.interpolation_type = Some(self.string(e)?);
                    }
                    _ => self.unknown(Item::Entry(e), known::BONE_PART, &mut p.extra)?,
                },
                Item::Scope(sc) => match sc.tag {
                    "TimeKeys" => {
                        seen.once("TimeKeys", sc.pos)?;
                        let pos = sc.pos;
                        p.time_keys = self.time_keys(sc)?;
                        lists.push(("TimeKeys", p.time_keys.len(), pos));
                    }
                    "TransKeys" => {
                        seen.once("TransKeys", sc.pos)?;
                        let pos = sc.pos;
                        p.trans_keys = self.rows::<3>(sc)?;
                        lists.push(("TransKeys", p.trans_keys.len(), pos));
                    }
                    "RotateKeys" => {
                        seen.once("RotateKeys", sc.pos)?;
                        let pos = sc.pos;
                        p.rotate_keys = self.rows::<4>(sc)?;
                        lists.push(("RotateKeys", p.rotate_keys.len(), pos));
                    }
                    "ScaleKeys" => {
                        seen.once("ScaleKeys", sc.pos)?;
                        let pos = sc.pos;
                        p.scale_keys = self.rows::<3>(sc)?;
                        lists.push(("ScaleKeys", p.scale_keys.len(), pos));
                    }
                    _ => self.unknown(Item::Scope(sc), known::BONE_PART, &mut p.extra)?,
                },
                other => self.unknown(other, known::BONE_PART, &mut p.extra)?,
            }
        }
        // Rule 15: every present key list has the same length.
        let mut lists = lists.into_iter().filter(|(_, n, _)| *n > 0);
        if let Some((first, len, _)) = lists.next() {
            for (what, n, pos) in lists {
                if n != len {
                    return Err(mismatch(pos, first, len as u64, what, n));
                }
            }
        }
        Ok(p)
    }

    fn uv_animation(&mut self, s: Scope<'_>) -> Result<UvAnimation> {
        let (time_keys, parts, extra) = self.keyed_animation(s, Self::uv_part)?;
        Ok(UvAnimation {
            time_keys,
            parts,
            extra,
        })
    }

    fn uv_part(&mut self, s: Scope<'_>) -> Result<UvAnimationPart> {
        let mut p = UvAnimationPart::default();
        let mut seen = Seen::default();
        let mut container_pos = s.pos;
        let mut material_pos = s.pos;
        let (items, extra) = self.sift(s.items, known::UV_PART)?;
        p.extra = extra;
        for item in items {
            match item {
                Item::Entry(e) if e.key == "MeshContainerName" => {
                    seen.once("MeshContainerName", e.pos)?;
                    container_pos = e.pos;
                    p.mesh_container_name = Some(self.string(e)?);
                }
                Item::Entry(e) if e.key == "MaterialName" => {
                    seen.once("MaterialName", e.pos)?;
                    material_pos = e.pos;
                    p.material_name = Some(self.string(e)?);
                }
                Item::Scope(sc) => match sc.tag {
                    "TimeKeys" => {
                        seen.once("TimeKeys", sc.pos)?;
                        p.time_keys = self.time_keys(sc)?;
                    }
                    tag @ ("TransKeys" | "RotateKeys" | "ScaleKeys") => {
                        let (scope, width): (&'static str, usize) = match tag {
                            "TransKeys" => ("TransKeys", 2),
                            "RotateKeys" => ("RotateKeys", 1),
                            _ => ("ScaleKeys", 2),
                        };
                        seen.once(scope, sc.pos)?;
                        let (rows, pos) = self.raw_rows(sc)?;
                        if let Some((row, pos)) =
                            rows.iter().zip(&pos).find(|(r, _)| r.len() != width)
                        {
                            self.warn(
                                *pos,
                                WarningKind::UvKeyWidth {
                                    scope,
                                    width: row.len(),
                                },
                            );
                        }
                        match scope {
                            "TransKeys" => p.trans_keys = rows,
                            "RotateKeys" => p.rotate_keys = rows,
                            _ => p.scale_keys = rows,
                        }
                    }
                    _ => self.unknown(Item::Scope(sc), known::UV_PART, &mut p.extra)?,
                },
                other => self.unknown(other, known::UV_PART, &mut p.extra)?,
            }
        }
        let container = self
            .containers
            .iter()
            .find(|(n, _)| p.mesh_container_name.is_some() && *n == p.mesh_container_name);
        let material_ok = match (container, &p.material_name) {
            (Some((_, mats)), Some(m)) => mats.contains(m),
            _ => false,
        };
        let container_ok = container.is_some();
        self.resolve(
            container_pos,
            "MeshContainerName",
            &p.mesh_container_name,
            container_ok,
        );
        self.resolve(material_pos, "MaterialName", &p.material_name, material_ok);
        Ok(p)
    }
}
