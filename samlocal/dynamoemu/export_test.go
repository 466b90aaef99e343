package dynamoemu

// FrontOn is front, for the tests of package dynamoemu_test.
var FrontOn = front
