//! A missing Vulkan loader is a clear error (simulated with OXIR_VULKAN_LOADER; its own
//! test binary, since it sets a process-wide variable).

#[test]
fn missing_loader_is_a_clear_error() {
    std::env::set_var("OXIR_VULKAN_LOADER", "/nonexistent/libvulkan.so");
    let e = oxir_vulkan::list_devices().unwrap_err();
    assert!(e.is_unavailable());
    let text = e.to_string();
    assert!(
        text.contains("no Vulkan loader (libvulkan.so.1) found: install libvulkan1"),
        "{text}"
    );
    assert!(text.contains("/nonexistent/libvulkan.so"), "{text}");
}
