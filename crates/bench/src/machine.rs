//! The CPU a report ran on, as `lscpu` names it (both read /proc/cpuinfo):
//! model name, family, model and stepping. Elsewhere than Linux the fields
//! are "unknown".

pub struct Cpu {
    pub model: String,
    pub family: String,
    pub model_number: String,
    pub stepping: String,
    /// The `hypervisor` flag: a virtual machine, whose host is shared.
    pub virtualised: bool,
}

impl Cpu {
    pub fn read() -> Cpu {
        let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let field = |name: &str| {
            info.lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    (k.trim() == name).then(|| v.trim().to_string())
                })
                .unwrap_or_else(|| "unknown".into())
        };
        Cpu {
            model: field("model name"),
            family: field("cpu family"),
            model_number: field("model"),
            stepping: field("stepping"),
            virtualised: field("flags").split(' ').any(|f| f == "hypervisor"),
        }
    }

    /// A file name's stem: the model name in lower case with runs of other
    /// characters as one '-', then the family and model, so that two CPUs
    /// sold under one name (a cloud's "AMD EPYC") still differ.
    pub fn slug(&self) -> String {
        let mut s = String::new();
        for c in self.model.to_lowercase().chars() {
            if c.is_ascii_alphanumeric() {
                s.push(c);
            } else if !s.ends_with('-') && !s.is_empty() {
                s.push('-');
            }
        }
        format!("{}-f{}-m{}", s.trim_end_matches('-'), self.family, self.model_number)
    }
}
