// /docs: Swagger UI (the package's own copy in /static/vendor/swagger-ui) on this server's /openapi.json.
// A separate file, not an inline script, so that the page works under the server's Content-Security-Policy.
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
