"""What the test modules share: the command line as a test runs it (`cli`), and the sample documents of the
old instance type APIs (`samples`)."""
