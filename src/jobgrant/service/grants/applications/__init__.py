"""An application from its draft to its decision: the actions, the officers' assignment, its
messages, consortium partners."""
