//! The backend a binding's caller asks for: `auto` (the fastest this CPU
//! runs) or one of the core's, by name or by number. Whether the CPU runs it
//! is the core's answer, when the key is made.

use gcmsiv::Backend;

/// `"auto"` or a backend's name (`"portable"`, `"aesni-clmul"`, ..., as
/// [`Backend::name`]); `None` for any other.
pub fn backend_named(name: &str) -> Option<Backend> {
    match name {
        "auto" => Some(Backend::select()),
        _ => Backend::from_name(name),
    }
}

/// 0 for `auto`, else a backend's number: its place in [`Backend::ALL`],
/// from 1 (the C header's `GCMSIV_BACKEND_*`, Java's `Backend` enum);
/// `None` for any other.
pub fn backend_numbered(number: i32) -> Option<Backend> {
    match number {
        0 => Some(Backend::select()),
        _ => Backend::ALL.get(usize::try_from(number).ok()?.checked_sub(1)?).copied(),
    }
}

/// A backend's number (see [`backend_numbered`]).
pub fn backend_number(backend: Backend) -> i32 {
    let index =
        Backend::ALL.iter().position(|&b| b == backend).expect("internal error: every backend is listed");
    i32::try_from(index + 1).expect("internal error: a few backends")
}

/// The core's backends by name, in their numbers' order (from 1): the one
/// list every binding shows its users, read here rather than spelled out.
pub fn backend_names() -> impl Iterator<Item = &'static str> {
    Backend::ALL.iter().map(|b| b.name())
}

#[cfg(test)]
mod tests {
    use super::{backend_named, backend_numbered};
    use gcmsiv::Backend;

    #[test]
    fn names_and_numbers() {
        assert_eq!(backend_named("auto"), Some(Backend::select()));
        assert_eq!(backend_named("aesni-clmul"), Some(Backend::AesNiClmul));
        assert_eq!(backend_named("AUTO"), None);
        assert_eq!(backend_numbered(0), Some(Backend::select()));
        assert_eq!(backend_numbered(1), Some(Backend::Portable));
        assert_eq!(backend_numbered(3), Some(Backend::AesNiVaes));
        assert_eq!(backend_numbered(4), Some(Backend::Armv8AesPmull));
        assert_eq!([-1, 5, i32::MIN].map(backend_numbered), [None; 3]);
        for backend in Backend::ALL {
            assert_eq!(backend_numbered(super::backend_number(backend)), Some(backend));
            assert_eq!(backend_named(backend.name()), Some(backend));
        }
    }
}
