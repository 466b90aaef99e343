package proc

// MainWithin is Main with the steps of its stop (see Main) shortened, for
// the tests.
var MainWithin = mainWithin
