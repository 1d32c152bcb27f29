// Starts Swagger UI on /openapi.json. A file of its own so the docs page needs no inline
// script (its Content-Security-Policy allows scripts from 'self' only).
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  layout: "BaseLayout",
  deepLinking: true,
  showExtensions: true,
  showCommonExtensions: true,
  validatorUrl: null, // never ask an outside validator about the spec
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
});
