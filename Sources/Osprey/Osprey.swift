// `import Osprey` is enough for API clients: the promise type every request returns comes with it.
@_exported import Promises
