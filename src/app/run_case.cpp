// placeholder, replaced by the application driver
namespace ugks { void app_placeholder() {} }
