import ArgumentParser
import Storage

extension CredentialScope: ExpressibleByArgument {}
