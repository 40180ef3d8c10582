//! The sandbox's seccomp filter (`computer.md` §4 point 3): the helper
//! sets it on itself before it reads a request, so every command inherits
//! it. The calls it refuses (EPERM) reach kernel surface a command has no
//! use for: mounts and namespaces, keyrings, BPF, perf, userfaultfd,
//! io_uring, module and kexec loading, and the host-wide switches.

use std::collections::BTreeMap;

use seccompiler::{BpfProgram, SeccompAction, SeccompFilter, TargetArch};

/// The refused calls.
fn refused() -> Vec<libc::c_long> {
    vec![
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_open_tree,
        libc::SYS_move_mount,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_mount_setattr,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_userfaultfd,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_open_by_handle_at,
        libc::SYS_syslog,
        libc::SYS_acct,
        libc::SYS_quotactl,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_reboot,
    ]
}

fn target() -> Result<TargetArch, String> {
    if cfg!(target_arch = "x86_64") {
        Ok(TargetArch::x86_64)
    } else if cfg!(target_arch = "aarch64") {
        Ok(TargetArch::aarch64)
    } else {
        Err("no seccomp filter for this architecture".into())
    }
}

/// The filter, compiled.
pub fn program() -> Result<BpfProgram, String> {
    // An empty rule list matches the call whatever its arguments.
    let rules: BTreeMap<i64, Vec<seccompiler::SeccompRule>> = refused()
        .into_iter()
        .map(|call| (call, Vec::new()))
        .collect();
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        target()?,
    )
    .map_err(|e| e.to_string())?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())
}

/// Sets the filter on this process (it cannot be lifted).
pub fn apply() -> Result<(), String> {
    seccompiler::apply_filter(&program()?).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_filter_compiles_for_this_machine() {
        let program = super::program().unwrap();
        assert!(program.len() > super::refused().len());
    }
}
