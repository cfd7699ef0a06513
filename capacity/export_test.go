package capacity

// EngineSearch is engineSearch, for the external tests.
var EngineSearch = engineSearch
