// One step of the walk that selects the tests to run for a change: from a set of symbols, what
// runs them. Callers, subclasses and holders (CALLS, INHERITS_FROM, and REFERENCES from a test or
// a class body: a callback a test hands on, a table of formatters), the methods an override overrides
// (in-repo) and the callers of a library base's methods, the tests a set-up method or an
// autouse fixture runs before, the closures of a factory a module hands them to, the tests whose
// decorators call them, the tests of a test file whose top-level code calls them, the tests that
// call them (TESTED_BY), callers whose dangling call names them (`x.save()` may run any `save`: the
// graph could not tell which), the function a nested function or class is defined in, and the class of
// a method that runs without being called by name (`__init__`, `__call__`, `__enter__`, other
// dunders the language calls, properties): it runs whenever its class is used (a `__call__`,
// unless a library class holds the instance: then where the library's methods are called).
// param repo: repository name
// param branch: branch name
// param ids: node ids of functions, methods or classes (a list)
// param implicit: method names the language calls by itself (a list) [default: []]
// param setups: set-up method names a test framework runs before each test of the class (a list) [default: []]
// param inert_bases: library bases that hold no code calling a subclass's methods, only typing or abstractness (`typing.Generic`) (a list) [default: []]
// param rows: the most symbols the step returns (the first by id) [default: 100000]
UNWIND $ids AS id
CALL (id) {
  MATCH (t:Function {id: id}) RETURN t UNION MATCH (t:Method {id: id}) RETURN t
  UNION MATCH (t:Class {id: id}) RETURN t
}
CALL (t) {
  MATCH (t)<-[:CALLS|INHERITS_FROM]-(u) RETURN u, null AS cond
  UNION
  // What names a symbol as a value runs it later. A test hands it to the code it tests, a class
  // body's table runs with the class's methods; a function that names one mostly registers it
  // (`jinja_env.globals.update(url_for=...)`), and what runs it then is whoever asks the
  // registry for it, not whatever builds the registry: that holder is not followed.
  MATCH (t)<-[:REFERENCES]-(u)
  WHERE u:Class OR coalesce(u.is_test, false)
  RETURN u, null AS cond
  UNION
  MATCH (t)-[:TESTED_BY]->(u) RETURN u, null AS cond
  UNION
  MATCH (d:Unresolved {repo: $repo, branch: $branch, name: t.name})<-[c:CALLS]-(u)
  WHERE (t:Function OR t:Method)
    // A member of a base that only declares types is one the resolver found on no class
    // (`self.type._describe_range()` read as `typing.Generic._describe_range`): unknown, not external.
    AND (d.reason <> 'external' OR any(base IN $inert_bases WHERE d.raw STARTS WITH base + '.'))
    // `rv.headers.update()` calls a method, `update()` a function: a view named `update` is not
    // what an unknown receiver's `update` runs.
    AND (t:Method) = (c.raw CONTAINS '.')
  RETURN u, null AS cond
  UNION
  // An override runs wherever its base's method is called on an instance of the subclass
  // (`for tag in self.order: tag.check(v)` resolves to JSONTag.check and runs TagDict.check):
  // the walk goes on from the method it overrides, in any in-repo ancestor, an interface it
  // implements too (jsoup's tests call `Connection.execute()`, which runs HttpConnection's). Not
  // a constructor (Java's is named after its class): building the base (or another subclass:
  // IntRange beside FloatRange) does not run it.
  // What is reached so runs the override only where an instance of its class is made: the
  // step says which class (`cond`), and the walk keeps the tests that make one.
  MATCH (c)-[:DEFINES]->(t:Method)
  WHERE (c:Class OR c:Interface) AND c.name <> t.name
    AND NOT t.name IN ['__init__', '__new__', '__post_init__', '__init_subclass__', '__class_getitem__']
  MATCH (c)-[:INHERITS_FROM|IMPLEMENTS*1..8]->(a)-[:DEFINES]->(u:Method {name: t.name})
  WHERE a:Class OR a:Interface
  RETURN u, c.id AS cond
  UNION
  // A library's base class calls its subclass's overrides (werkzeug's Client.get calls
  // FlaskClient.open): an override in a class with a library base (a module's class, not a
  // builtin) runs wherever that base's methods are called. An override is a method the base
  // is known to have: the repository calls it on the base somewhere (often as super().open()).
  // A call is of the base's own method, not of an attribute chain through an instance
  // (`self.Answer.objects.create()` in a unittest.TestCase is not TestCase code running).
  // Not a constructor either: it runs where its class is made (the implicit methods' rule),
  // not wherever the base's methods are (click's `io.TextIOWrapper` subclasses). Nor a base
  // that only declares types (`typing.Generic[V]`: an attribute the resolver found on no
  // in-repo class reads as one of its members, so every such use would run every override).
  MATCH (c:Class)-[:DEFINES]->(t:Method)
  WHERE NOT t.name IN ['__init__', '__new__', '__post_init__', '__init_subclass__', '__class_getitem__']
  MATCH (c)-[:INHERITS_FROM]->(b:Unresolved {reason: 'external'})
  WHERE b.raw CONTAINS '.' AND NOT b.raw IN $inert_bases
    AND EXISTS { MATCH (:Unresolved {repo: $repo, branch: $branch, raw: b.raw + '.' + t.name}) }
  MATCH (e:Unresolved {repo: $repo, branch: $branch, reason: 'external'})<-[:CALLS]-(u)
  WHERE e.raw STARTS WITH b.raw + '.'
  WITH u, substring(e.raw, size(b.raw) + 1) AS member
  WHERE NOT member CONTAINS '.' AND NOT member CONTAINS '(' AND NOT member STARTS WITH '__'
  RETURN u, null AS cond
  UNION
  // A test class's set-up runs before each of its tests (and its subclasses' tests): unittest's
  // setUp/setUpClass, django's setUpTestData, pytest's setup_method/setup_class.
  MATCH (c:Class)-[:DEFINES]->(t:Method)
  WHERE t.name IN $setups
  MATCH (sub:Class)-[:INHERITS_FROM*0..6]->(c)
  MATCH (sub)-[:DEFINES]->(u:Method)
  WHERE u.is_test
  RETURN u, null AS cond
  UNION
  // A function handed to a call at module level (`_default_text_stdout =
  // _make_cached_stream_func(..., get_text_stdout)`) runs where what that call makes runs: the
  // closures the called factory defines, which calls of the module's variable resolve to.
  MATCH (t)<-[r:REFERENCES]-(:File)-[c:CALLS]->(factory:Function)
  WHERE any(line IN coalesce(r.lines, [r.line]) WHERE line IN coalesce(c.lines, [c.line]))
  MATCH (factory)-[:DEFINES]->(u:Function)
  RETURN u, null AS cond
  UNION
  // A test's decorators are evaluated where the test is defined, but what they build (the
  // cases of a parametrize, a hypothesis strategy, a patch) is the test's input: a call its
  // module or class makes on the test's decorator lines, or a symbol it names there (a list
  // of cases), runs for that test.
  MATCH (t)<-[c:CALLS|REFERENCES]-(scope)
  WHERE scope:File OR scope:Class
  MATCH (scope)-[:DEFINES]->(u)
  WHERE (u:Function OR u:Method) AND u.is_test
    AND any(line IN coalesce(c.lines, [c.line]) WHERE u.start_line <= line <= u.end_line)
  RETURN u, null AS cond
  UNION
  // A call at the top of a test file runs when the file is imported, before any of its tests,
  // and what it makes (`EqC = cmp_using(eq=...)`, `app = create_app()`) is what they use: it
  // runs for each test of the file. (A call on a test's decorator lines is that test's input,
  // above.)
  MATCH (t)<-[c:CALLS]-(f:File)
  WHERE any(line IN coalesce(c.lines, [c.line])
            WHERE NOT EXISTS { MATCH (f)-[:DEFINES]->(d) WHERE d.start_line <= line <= d.end_line })
  MATCH (f)-[:DEFINES*1..2]->(u)
  WHERE (u:Function OR u:Method) AND u.is_test
  RETURN u, null AS cond
  UNION
  // An autouse fixture runs for every test in its scope: the tests of its file, or of the
  // folder of the conftest.py that defines it.
  MATCH (t:Function)
  WHERE any(d IN coalesce(t.decorators, []) WHERE d CONTAINS 'fixture' AND d CONTAINS 'autouse=True')
  WITH t, CASE WHEN t.path ENDS WITH 'conftest.py' THEN left(t.path, size(t.path) - size('conftest.py'))
              ELSE t.path END AS scope
  CALL (scope) {
    MATCH (u:Function {repo: $repo, branch: $branch}) WHERE u.is_test AND u.path STARTS WITH scope RETURN u
    UNION
    MATCH (u:Method {repo: $repo, branch: $branch}) WHERE u.is_test AND u.path STARTS WITH scope RETURN u
  }
  RETURN u, null AS cond
  UNION
  // An instance's `__call__` runs where the instance is called: by in-repo code (a CALLS edge),
  // or by a library it was handed to. When an in-repo subclass of a library class holds one
  // (its methods use the class's members), it runs wherever that library class's own methods
  // are called (werkzeug's Client.get calls the Flask app FlaskClient wraps) — constructing
  // the library object (super().__init__()) or its other dunders do not. Otherwise it runs
  // whenever its class is used, like the other implicit methods.
  MATCH (c:Class)-[:DEFINES]->(t:Method {name: '__call__'})
  // A holder is another class: a class calling its own or its bases' methods holds nothing.
  // (Read from the class up: a holder looked for among every class first scans them all.)
  OPTIONAL MATCH (c)-[:INHERITS_FROM*0..8]->(a:Class)-[:DEFINES]->(:Method)<-[:CALLS]-(:Method)<-[:DEFINES]-(l:Class)
  WHERE l <> c AND NOT EXISTS { MATCH (c)-[:INHERITS_FROM*1..8]->(l) }
    AND NOT EXISTS { MATCH (l)-[:INHERITS_FROM*1..8]->(a) }
  OPTIONAL MATCH (l)-[:INHERITS_FROM]->(b:Unresolved {reason: 'external'})
  WHERE b.raw CONTAINS '.' AND NOT b.raw IN $inert_bases
  WITH c, collect(DISTINCT b.raw) AS bases
  CALL (c, bases) {
    WITH c WHERE bases = []
    RETURN c AS u
    UNION
    UNWIND bases AS base
    MATCH (e:Unresolved {repo: $repo, branch: $branch, reason: 'external'})<-[:CALLS]-(u)
    WHERE e.raw STARTS WITH base + '.'
    WITH u, substring(e.raw, size(base) + 1) AS member
    WHERE NOT member CONTAINS '.' AND NOT member CONTAINS '(' AND NOT member STARTS WITH '__'
    RETURN u
  }
  RETURN u, null AS cond
  UNION
  // A function or class defined inside a function is made when that function runs (a class
  // statement in a test runs its metaclass and base's hooks there).
  MATCH (u)-[:DEFINES]->(t)
  WHERE ((t:Function OR t:Class) AND (u:Function OR u:Method))
     OR (t:Method AND u:Class AND (t.name IN $implicit OR any(d IN coalesce(t.decorators, [])
         WHERE d CONTAINS 'property' OR d ENDS WITH '.setter' OR d ENDS WITH '.getter')))
  RETURN u, null AS cond
}
// One entry per symbol reached (many paths lead to a busy one), with the ids it was reached
// from (`targets`; `through`: [id, class] where only an instance of that class runs it), all in
// one record: a step can reach thousands, and reading a record each costs more.
WITH u, collect(DISTINCT CASE WHEN cond IS NULL THEN id END) AS targets,
     collect(DISTINCT CASE WHEN cond IS NOT NULL THEN [id, cond] END) AS through
ORDER BY u.id
LIMIT $rows
RETURN collect({targets: targets, through: through, id: u.id, kind: labels(u)[0], qualname: u.qualname, name: u.name, path: u.path,
                start_line: u.start_line, end_line: u.end_line, is_test: coalesce(u.is_test, false)}) AS reached
