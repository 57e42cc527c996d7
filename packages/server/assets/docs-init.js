// Starts Swagger UI on the page GET /docs serves, from the OpenAPI document its data-openapi attribute names. A file
// of its own, because the page's Content-Security-Policy runs no inline script.
const root = document.getElementById('swagger-ui');
if (root && typeof window.SwaggerUIBundle === 'function') {
  window.SwaggerUIBundle({
    url: new URL(root.dataset.openapi ?? 'openapi.json', document.baseURI).href,
    domNode: root,
    // No request to a third party: the default checks the document at validator.swagger.io.
    validatorUrl: null,
    deepLinking: true,
    // Credentials typed into "Authorize" stay in the page, never in the browser's storage.
    persistAuthorization: false,
  });
  document.getElementById('no-script')?.remove();
}
