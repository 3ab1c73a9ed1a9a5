//! Feature proofs: what this CPU, and the operating system running it, let the
//! kernels use. The one place the x86-64 backend reads CPUID and XCR0, and the
//! one place its register width is chosen.
//!
//! An instruction set extension is usable when its CPUID bit is set *and* the
//! operating system saves the registers it touches, which XCR0 (read by
//! XGETBV, once CPUID says OSXSAVE) tells (Intel SDM vol. 1, 13.3 and 15.2;
//! AMD APM vol. 2, 11.5.2):
//!
//! - AES-NI, PCLMULQDQ, SSSE3 and SSE4.1 use XMM registers only (SSE state,
//!   always saved by an x86-64 OS);
//! - AVX, AVX2, FMA, F16C and the VEX-encoded (128/256-bit) VAES and
//!   VPCLMULQDQ need XCR0's SSE and AVX bits (1 and 2);
//! - AVX-512 F, BW and VL, and the EVEX (512-bit) forms of VAES and
//!   VPCLMULQDQ, need XCR0's opmask, ZMM_Hi256 and Hi16_ZMM bits (5, 6, 7)
//!   besides.
//!
//! VAES and VPCLMULQDQ do not need AVX-512: Zen 3 and Intel's client cores
//! from Alder Lake on have them with AVX2 only, and take the 256-bit path.
//!
//! The features checked are exactly those the kernels enable, with what
//! `rustc` makes them imply (`avx` implies SSE4.2; `avx512f` implies FMA and
//! F16C), so that no instruction the compiler may emit is left unchecked.
//!
//! A test-only cap, the `gcmsiv_max_width` cfg (`"128"` or `"256"`; the
//! build script sets it from `GCMSIV_MAX_WIDTH` at build time), makes
//! detection answer as a CPU without the wider registers would: the test
//! suite runs the 256-bit path on an AVX-512 host exactly as a Zen 3 runs it.
//! It is fixed when the crate is compiled, not an API or a variable read at
//! run time, so no program can narrow the width by accident.

use core::arch::x86_64::{__cpuid, __cpuid_count, _xgetbv};
use core::sync::atomic::{AtomicU8, Ordering};

/// The instruction set extensions the backend uses or that the ones it uses
/// imply, each as the architecture defines its availability (CPUID bit and
/// operating-system state).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Feature {
    Aes,
    Pclmulqdq,
    Ssse3,
    Sse41,
    Sse42,
    Avx,
    Avx2,
    Fma,
    F16c,
    Vaes,
    Vpclmulqdq,
    Avx512f,
    Avx512bw,
    Avx512vl,
}

impl Feature {
    /// Every feature, for the test that compares each with the standard
    /// library's detection.
    #[cfg(test)]
    pub(crate) const ALL: [Feature; 14] = [
        Feature::Aes,
        Feature::Pclmulqdq,
        Feature::Ssse3,
        Feature::Sse41,
        Feature::Sse42,
        Feature::Avx,
        Feature::Avx2,
        Feature::Fma,
        Feature::F16c,
        Feature::Vaes,
        Feature::Vpclmulqdq,
        Feature::Avx512f,
        Feature::Avx512bw,
        Feature::Avx512vl,
    ];
}

/// XCR0: SSE (XMM) and AVX (upper YMM) state.
const XCR0_AVX: u64 = 0b110;
/// XCR0: AVX-512 opmask, ZMM_Hi256 and Hi16_ZMM state, with XCR0_AVX.
const XCR0_AVX512: u64 = 0b1110_0110;

/// What CPUID and XCR0 report, as read (or, in tests, as made up).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CpuId {
    /// CPUID leaf 1: ECX.
    pub(crate) leaf1_ecx: u32,
    /// CPUID leaf 7, subleaf 0: EBX and ECX (zero if leaf 7 does not exist).
    pub(crate) leaf7_ebx: u32,
    pub(crate) leaf7_ecx: u32,
    /// XCR0, or zero if the OS has not enabled XSAVE (CPUID.1:ECX.OSXSAVE).
    pub(crate) xcr0: u64,
    /// "GenuineIntel", and the display family and model (CPUID leaf 1 EAX).
    pub(crate) intel: bool,
    pub(crate) family: u32,
    pub(crate) model: u32,
}

impl CpuId {
    /// Reads this CPU.
    pub(crate) fn read() -> Self {
        // SAFETY (CPUID): it exists on every x86-64 CPU. (The functions are
        // safe in recent Rust and `unsafe` in the older ones the crate supports.)
        #[allow(unused_unsafe)]
        let (leaf0, leaf1) = unsafe { (__cpuid(0), __cpuid(1)) };
        let (leaf7_ebx, leaf7_ecx) = if leaf0.eax >= 7 {
            // SAFETY: as above; leaf 7 exists (leaf 0's EAX).
            #[allow(unused_unsafe)]
            let leaf7 = unsafe { __cpuid_count(7, 0) };
            (leaf7.ebx, leaf7.ecx)
        } else {
            (0, 0)
        };
        let osxsave = leaf1.ecx & (1 << 27) != 0;
        // SAFETY: OSXSAVE says the OS has enabled XSAVE, and with it XGETBV.
        let xcr0 = if osxsave { unsafe { xgetbv0() } } else { 0 };
        // "GenuineIntel" in EBX, EDX, ECX.
        let intel = (leaf0.ebx, leaf0.edx, leaf0.ecx) == (0x756e_6547, 0x4965_6e69, 0x6c65_746e);
        let (family, model) = family_model(leaf1.eax);
        CpuId { leaf1_ecx: leaf1.ecx, leaf7_ebx, leaf7_ecx, xcr0, intel, family, model }
    }

    /// Whether `feature` is usable: its CPUID bit and the register state it
    /// needs.
    pub(crate) fn has(&self, feature: Feature) -> bool {
        let bit = |reg: u32, n: u32| reg & (1 << n) != 0;
        let avx_state = self.xcr0 & XCR0_AVX == XCR0_AVX;
        let avx512_state = self.xcr0 & XCR0_AVX512 == XCR0_AVX512;
        match feature {
            Feature::Aes => bit(self.leaf1_ecx, 25),
            Feature::Pclmulqdq => bit(self.leaf1_ecx, 1),
            Feature::Ssse3 => bit(self.leaf1_ecx, 9),
            Feature::Sse41 => bit(self.leaf1_ecx, 19),
            Feature::Sse42 => bit(self.leaf1_ecx, 20),
            Feature::Avx => bit(self.leaf1_ecx, 28) && avx_state,
            Feature::Avx2 => bit(self.leaf7_ebx, 5) && avx_state,
            Feature::Fma => bit(self.leaf1_ecx, 12) && avx_state,
            Feature::F16c => bit(self.leaf1_ecx, 29) && avx_state,
            Feature::Vaes => bit(self.leaf7_ecx, 9) && avx_state,
            Feature::Vpclmulqdq => bit(self.leaf7_ecx, 10) && avx_state,
            Feature::Avx512f => bit(self.leaf7_ebx, 16) && avx512_state,
            Feature::Avx512bw => bit(self.leaf7_ebx, 30) && avx512_state,
            Feature::Avx512vl => bit(self.leaf7_ebx, 31) && avx512_state,
        }
    }

    fn has_all(&self, features: &[Feature]) -> bool {
        features.iter().all(|&f| self.has(f))
    }

    /// Intel Ice Lake (client and server) and Tiger Lake: family 6, models
    /// 0x6A, 0x6C, 0x7D, 0x7E, 0x9D, 0x8C and 0x8D, the CPUs on which the
    /// Linux kernel's AES-GCM keeps to 256-bit registers (its
    /// `X86_FEATURE_PREFER_YMM` list, less Skylake-X, which has no VAES).
    fn lowers_clock_for_zmm(&self) -> bool {
        self.intel && self.family == 6 && matches!(self.model, 0x6A | 0x6C | 0x7D | 0x7E | 0x9D | 0x8C | 0x8D)
    }
}

/// The display family and model from CPUID leaf 1's EAX, with the extended
/// fields where the SDM says they apply (vol. 2A, CPUID, figure 3-6).
fn family_model(eax: u32) -> (u32, u32) {
    let base_family = (eax >> 8) & 0xf;
    let base_model = (eax >> 4) & 0xf;
    let family = if base_family == 0xf { base_family + ((eax >> 20) & 0xff) } else { base_family };
    let model = if base_family == 0x6 || base_family == 0xf {
        base_model | ((eax >> 16) & 0xf) << 4
    } else {
        base_model
    };
    (family, model)
}

/// XCR0, the register state the OS saves.
///
/// # Safety
/// The OS must have enabled XSAVE (CPUID.1:ECX.OSXSAVE).
#[target_feature(enable = "xsave")]
unsafe fn xgetbv0() -> u64 {
    // SAFETY: the caller's promise.
    unsafe { _xgetbv(0) }
}

/// The widest registers the test-only cap allows (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Width {
    W128,
    W256,
    W512,
}

impl Width {
    /// The build's cap: the `gcmsiv_max_width` cfg, else none.
    pub(crate) const CAP: Width = if cfg!(gcmsiv_max_width = "128") {
        Width::W128
    } else if cfg!(gcmsiv_max_width = "256") {
        Width::W256
    } else {
        Width::W512
    };
}

/// The kernels' tiers, each requiring the one before.
const BASE: &[Feature] = &[Feature::Aes, Feature::Pclmulqdq, Feature::Ssse3, Feature::Sse41];
/// The short kernels' three-operand forms (`avx` implies SSE4.2 in rustc).
const AVX: &[Feature] = &[Feature::Avx, Feature::Sse42];
/// The 256-bit passes.
const WIDE: &[Feature] = &[Feature::Avx2, Feature::Vaes, Feature::Vpclmulqdq];
/// The 512-bit passes (`avx512f` implies FMA and F16C in rustc).
const ZMM: &[Feature] =
    &[Feature::Avx512f, Feature::Avx512bw, Feature::Avx512vl, Feature::Fma, Feature::F16c];

/// What the backend may use on a CPU, and what it chooses to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tiers {
    /// AES-NI, PCLMULQDQ, SSSE3, SSE4.1: the `aesni-clmul` backend.
    pub(crate) base: bool,
    /// AVX (with SSE4.2) besides: the short kernels' VEX forms.
    pub(crate) avx: bool,
    /// AVX2, VAES and VPCLMULQDQ besides: the `aesni-vaes` backend.
    pub(crate) wide: bool,
    /// AVX-512 F, BW and VL (with FMA and F16C) besides: the 512-bit passes
    /// can run.
    pub(crate) zmm_capable: bool,
    /// ... and are chosen: not on CPUs where 512-bit registers lower the clock.
    pub(crate) zmm: bool,
}

impl Tiers {
    /// The rule, as a function of what CPUID said and the cap.
    pub(crate) fn of(cpu: &CpuId, cap: Width) -> Self {
        let base = cpu.has_all(BASE);
        let avx = base && cpu.has_all(AVX);
        let wide = avx && cap >= Width::W256 && cpu.has_all(WIDE);
        let zmm_capable = wide && cap >= Width::W512 && cpu.has_all(ZMM);
        // On Ice Lake and Tiger Lake, 512-bit instructions lower the core's
        // clock (its "license") for a while after they run, which slows every
        // other program on that core, and the gain over 256 bits is smallest
        // for the short messages most callers send: 256 bits there, as the
        // Linux kernel does. Sapphire Rapids and later, and AMD Zen 4 and
        // later, run them at full clock.
        let zmm = zmm_capable && !cpu.lowers_clock_for_zmm();
        Tiers { base, avx, wide, zmm_capable, zmm }
    }

    /// This CPU's tiers under the build's cap, read once and cached.
    pub(crate) fn detect() -> Self {
        static CACHE: AtomicU8 = AtomicU8::new(0);
        const READY: u8 = 1 << 7;
        let bits = CACHE.load(Ordering::Relaxed);
        if bits & READY != 0 {
            return Tiers::from_bits(bits);
        }
        let tiers = Tiers::of(&CpuId::read(), Width::CAP);
        CACHE.store(tiers.to_bits() | READY, Ordering::Relaxed);
        tiers
    }

    fn to_bits(self) -> u8 {
        u8::from(self.base)
            | u8::from(self.avx) << 1
            | u8::from(self.wide) << 2
            | u8::from(self.zmm_capable) << 3
            | u8::from(self.zmm) << 4
    }

    fn from_bits(bits: u8) -> Self {
        Tiers {
            base: bits & 1 != 0,
            avx: bits & 2 != 0,
            wide: bits & 4 != 0,
            zmm_capable: bits & 8 != 0,
            zmm: bits & 16 != 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CPU with everything the backend uses, as Zen 4 or Sapphire Rapids.
    fn full() -> CpuId {
        CpuId {
            leaf1_ecx: 1 << 25 | 1 << 1 | 1 << 9 | 1 << 19 | 1 << 20 | 1 << 28 | 1 << 12 | 1 << 29 | 1 << 27,
            leaf7_ebx: 1 << 5 | 1 << 16 | 1 << 30 | 1 << 31,
            leaf7_ecx: 1 << 9 | 1 << 10,
            xcr0: 0b1110_0111,
            intel: false,
            family: 0x19,
            model: 0x11,
        }
    }

    #[test]
    fn each_feature_agrees_with_the_standard_library_on_this_host() {
        let cpu = CpuId::read();
        for feature in Feature::ALL {
            let std = match feature {
                Feature::Aes => std::arch::is_x86_feature_detected!("aes"),
                Feature::Pclmulqdq => std::arch::is_x86_feature_detected!("pclmulqdq"),
                Feature::Ssse3 => std::arch::is_x86_feature_detected!("ssse3"),
                Feature::Sse41 => std::arch::is_x86_feature_detected!("sse4.1"),
                Feature::Sse42 => std::arch::is_x86_feature_detected!("sse4.2"),
                Feature::Avx => std::arch::is_x86_feature_detected!("avx"),
                Feature::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
                Feature::Fma => std::arch::is_x86_feature_detected!("fma"),
                Feature::F16c => std::arch::is_x86_feature_detected!("f16c"),
                // std reports these from CPUID alone; they are usable only with
                // the AVX state, which every OS that runs such a CPU enables.
                Feature::Vaes => std::arch::is_x86_feature_detected!("vaes"),
                Feature::Vpclmulqdq => std::arch::is_x86_feature_detected!("vpclmulqdq"),
                Feature::Avx512f => std::arch::is_x86_feature_detected!("avx512f"),
                Feature::Avx512bw => std::arch::is_x86_feature_detected!("avx512bw"),
                Feature::Avx512vl => std::arch::is_x86_feature_detected!("avx512vl"),
            };
            assert_eq!(cpu.has(feature), std, "{feature:?}");
        }
    }

    #[test]
    fn the_cached_answer_is_the_rule_applied_to_this_host() {
        assert_eq!(Tiers::detect(), Tiers::of(&CpuId::read(), Width::CAP));
        assert_eq!(Tiers::detect(), Tiers::detect());
    }

    #[test]
    fn every_tier_needs_its_instructions_and_their_register_state() {
        let all = Tiers { base: true, avx: true, wide: true, zmm_capable: true, zmm: true };
        assert_eq!(Tiers::of(&full(), Width::W512), all);
        // Zen 3 or Alder Lake: VAES and VPCLMULQDQ with AVX2, no AVX-512.
        let zen3 = CpuId { leaf7_ebx: 1 << 5, ..full() };
        assert_eq!(Tiers::of(&zen3, Width::W512), Tiers { zmm_capable: false, zmm: false, ..all });
        // An OS that saves YMM but not ZMM state: the 256-bit path.
        let no_zmm_state = CpuId { xcr0: 0b111, ..full() };
        assert_eq!(Tiers::of(&no_zmm_state, Width::W512), Tiers { zmm_capable: false, zmm: false, ..all });
        // No AVX state at all: neither the VEX forms nor VAES.
        let no_avx_state = CpuId { xcr0: 0b11, ..full() };
        let base_only = Tiers { base: true, avx: false, wide: false, zmm_capable: false, zmm: false };
        assert_eq!(Tiers::of(&no_avx_state, Width::W512), base_only);
        let no_xsave = CpuId { xcr0: 0, ..full() };
        assert_eq!(Tiers::of(&no_xsave, Width::W512), base_only);
        // Zen 1: AES-NI, PCLMULQDQ and AVX2, no VAES.
        let zen1 = CpuId { leaf7_ecx: 0, leaf7_ebx: 1 << 5, ..full() };
        assert_eq!(
            Tiers::of(&zen1, Width::W512),
            Tiers { wide: false, zmm_capable: false, zmm: false, ..all }
        );
        // VAES without VPCLMULQDQ, or without AVX2: not the wide backend.
        for leaf7 in
            [(1 << 5 | 1 << 16 | 1 << 30 | 1 << 31, 1 << 9), (1 << 16 | 1 << 30 | 1 << 31, 1 << 9 | 1 << 10)]
        {
            let cpu = CpuId { leaf7_ebx: leaf7.0, leaf7_ecx: leaf7.1, ..full() };
            assert!(!Tiers::of(&cpu, Width::W512).wide);
        }
        // AVX-512 F without BW or VL, or without FMA (which rustc makes
        // avx512f imply): 256 bits.
        for ebx in [1 << 5 | 1 << 16 | 1 << 31, 1 << 5 | 1 << 16 | 1 << 30] {
            assert!(!Tiers::of(&CpuId { leaf7_ebx: ebx, ..full() }, Width::W512).zmm_capable);
        }
        assert!(
            !Tiers::of(&CpuId { leaf1_ecx: full().leaf1_ecx & !(1 << 12), ..full() }, Width::W512)
                .zmm_capable
        );
        // Without AES-NI nothing; without SSE4.2 no VEX forms (avx implies it).
        assert!(!Tiers::of(&CpuId { leaf1_ecx: full().leaf1_ecx & !(1 << 25), ..full() }, Width::W512).base);
        assert!(!Tiers::of(&CpuId { leaf1_ecx: full().leaf1_ecx & !(1 << 20), ..full() }, Width::W512).avx);
    }

    #[test]
    fn the_cap_narrows_the_width_and_nothing_else() {
        let all = Tiers::of(&full(), Width::W512);
        assert_eq!(Tiers::of(&full(), Width::W256), Tiers { zmm_capable: false, zmm: false, ..all });
        assert_eq!(
            Tiers::of(&full(), Width::W128),
            Tiers { wide: false, zmm_capable: false, zmm: false, ..all }
        );
    }

    #[test]
    fn ice_lake_and_tiger_lake_keep_to_256_bits() {
        for model in [0x6A, 0x6C, 0x7D, 0x7E, 0x9D, 0x8C, 0x8D] {
            let cpu = CpuId { intel: true, family: 6, model, ..full() };
            let tiers = Tiers::of(&cpu, Width::W512);
            assert!(tiers.wide && tiers.zmm_capable && !tiers.zmm, "model {model:#x}");
        }
        // Sapphire Rapids (0x8F), Emerald Rapids (0xCF), Granite Rapids
        // (0xAD), Rocket Lake (0xA7): 512 bits. So do AMD's, whatever
        // their model numbers.
        for model in [0x8F, 0xCF, 0xAD, 0xA7] {
            assert!(Tiers::of(&CpuId { intel: true, family: 6, model, ..full() }, Width::W512).zmm);
        }
        assert!(Tiers::of(&CpuId { intel: false, family: 6, model: 0x7E, ..full() }, Width::W512).zmm);
    }

    #[test]
    fn family_and_model_are_read_with_their_extensions() {
        // CPUID leaf 1 EAX of an Ice Lake client, a Sapphire Rapids, a
        // Zen 3 and a Zen 4, and a family-5 Pentium (no extended fields).
        assert_eq!(family_model(0x0007_06E5), (6, 0x7E));
        assert_eq!(family_model(0x0008_06F8), (6, 0x8F));
        assert_eq!(family_model(0x00A0_0F11), (0x19, 0x01));
        assert_eq!(family_model(0x00A1_0F11), (0x19, 0x11));
        assert_eq!(family_model(0x000F_0543), (5, 4));
    }
}
