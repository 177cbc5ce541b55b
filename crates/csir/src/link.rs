//! Link-time varying remapping between a vertex and a fragment shader: every fragment
//! input is matched to the vertex output with the same name and type; uniforms of the
//! same name must have the same type. The result maps fragment slots to vertex slots,
//! for the interpreter ([`crate::exec::Inputs::var_remap`]) and the TGSI emitter.
//!
//! Not checked: interpolation qualifiers (the fragment shader's are used).

use crate::interface::IfaceType;
use crate::{Shader, Stage};
use std::collections::BTreeMap;

/// One remapped varying.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remapped {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: IfaceType,
    /// The fragment shader's slot.
    pub fragment_slot: u16,
    /// The vertex shader's slot.
    pub vertex_slot: u16,
}

/// A linked pair's interface.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Link {
    /// The fragment inputs, in fragment slot order.
    pub varyings: Vec<Remapped>,
    /// Vertex outputs no fragment input reads.
    pub unused_outputs: Vec<String>,
}

impl Link {
    /// Fragment slot -> vertex slot.
    pub fn remap(&self) -> BTreeMap<u16, u16> {
        self.varyings
            .iter()
            .map(|v| (v.fragment_slot, v.vertex_slot))
            .collect()
    }
}

/// Why two shaders do not link.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// The stages are not a vertex then a fragment shader.
    #[error("link takes a vertex shader and a fragment shader")]
    Stages,
    /// A fragment input has no vertex output of that name.
    #[error("fragment input `{0}` is not written by the vertex shader")]
    Missing(String),
    /// Same name, other type.
    #[error(
        "varying `{name}` is {vertex} in the vertex shader and {fragment} in the fragment shader"
    )]
    Type {
        /// The name.
        name: String,
        /// The vertex output's type.
        vertex: IfaceType,
        /// The fragment input's type.
        fragment: IfaceType,
    },
    /// A uniform of one name with two types.
    #[error("uniform `{0}` has different types in the two shaders")]
    Uniform(String),
}

/// Links `vs` and `fs`.
pub fn link(vs: &Shader, fs: &Shader) -> Result<Link, LinkError> {
    if vs.stage != Stage::Vertex || fs.stage != Stage::Fragment {
        return Err(LinkError::Stages);
    }
    let mut out = Link::default();
    let mut fs_inputs = fs.interface.varyings.clone();
    fs_inputs.sort_by_key(|v| v.slot);
    for input in &fs_inputs {
        let Some(output) = vs.interface.varyings.iter().find(|o| o.name == input.name) else {
            return Err(LinkError::Missing(input.name.clone()));
        };
        if output.ty != input.ty {
            return Err(LinkError::Type {
                name: input.name.clone(),
                vertex: output.ty,
                fragment: input.ty,
            });
        }
        out.varyings.push(Remapped {
            name: input.name.clone(),
            ty: input.ty,
            fragment_slot: input.slot,
            vertex_slot: output.slot,
        });
    }
    for u in &fs.interface.uniforms {
        if vs
            .interface
            .uniforms
            .iter()
            .any(|v| v.name == u.name && v.ty != u.ty)
        {
            return Err(LinkError::Uniform(u.name.clone()));
        }
    }
    out.unused_outputs = vs
        .interface
        .varyings
        .iter()
        .filter(|o| !fs_inputs.iter().any(|i| i.name == o.name))
        .map(|o| o.name.clone())
        .collect();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interface::{Interp, Slot};
    use crate::verify::sample_vertex;

    fn fragment_with(name: &str, lanes: u8, slot: u16) -> Shader {
        let mut fs = sample_vertex();
        fs.stage = Stage::Fragment;
        fs.interface.attributes.clear();
        fs.interface.varyings = vec![Slot {
            name: name.into(),
            ty: IfaceType::vector(lanes),
            slot,
            interp: Interp::Perspective,
        }];
        fs
    }

    #[test]
    fn remaps_by_name_and_rejects_mismatches() {
        let vs = sample_vertex(); // varying `color`, vec4, slot 1
        let link = link(&vs, &fragment_with("color", 4, 6)).unwrap();
        assert_eq!(link.remap(), BTreeMap::from([(6, 1)]));
        assert!(link.unused_outputs.is_empty());
        assert_eq!(
            super::link(&vs, &fragment_with("colour", 4, 0)),
            Err(LinkError::Missing("colour".into()))
        );
        assert!(matches!(
            super::link(&vs, &fragment_with("color", 3, 0)),
            Err(LinkError::Type { .. })
        ));
        assert_eq!(super::link(&vs, &vs), Err(LinkError::Stages));
    }
}
