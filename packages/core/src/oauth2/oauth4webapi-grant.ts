// What client-credentials.ts uses of oauth4webapi, in a module of its own: it is imported at the first token request
// (so a page that never uses OAuth 2.0 does not load it), and a bundler keeps only these names of oauth4webapi in the
// chunk it makes for that `import()`, where importing the package itself would keep all of it (issue 24, its size).
export {
  allowInsecureRequests,
  ClientSecretBasic,
  clientCredentialsGrantRequest,
  customFetch,
  processClientCredentialsResponse,
  ResponseBodyError,
  WWWAuthenticateChallengeError,
} from 'oauth4webapi';
