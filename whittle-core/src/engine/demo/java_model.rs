//! A model of the LocalizedPi example's test, so that the example runs without a JDK.
//!
//! The real test (`examples/localized-pi-java/oracle.sh`) compiles the candidate with javac,
//! runs it with the argument `en`, which must end normally, and with `hu`, which must die with
//! an exception. The model does the same over the Java parse, for the small part of Java the
//! example is written in (one class of methods; `String` and `String[]` values; string
//! literals, `args[i]`, calls of the class's methods and of `equals`, `concat` and
//! `System.out.println`, `new` exceptions; `if`/`else`, blocks, locals, `return`, `throw`):
//!
//! - *compiles*: the parse has no errors; the class holds only methods, with distinct names;
//!   every type is `void`, `String` or `String[]`; every name is declared before it is used,
//!   initialized, and declared once in its method; calls name a method with as many arguments
//!   of the parameters' types (a method called without an object is `static`); expression
//!   statements are calls or `new`; conditions are `boolean`; `return` gives a value of the
//!   method's type, `throw` an exception; no statement follows one that cannot complete
//!   (javac's "unreachable statement"), and a method with a value cannot complete without
//!   `return` (javac's "missing return statement"); `main` is `public static void` with one
//!   `String[]`;
//! - *runs*: an interpreter of that part of Java, where an `args` index out of range, a `throw`
//!   and a recursion deeper than [`MAX_CALLS`] are exceptions.
//!
//! Anything outside that part of Java is not interesting: the model never accepts what it does
//! not understand. On the 507 candidates that `hddr` and `hoistr+hddr` judge with the real
//! test (`-j 2`), the model gives the real verdict on every one (see the test of `demo`).

use std::collections::HashMap;

use crate::tree::{Language, NodeId, Preprocess, Tree};

/// Nested calls at most before the model's Java overflows its stack.
pub const MAX_CALLS: usize = 64;

/// Whether the candidate compiles, runs with `en` and dies with an exception with `hu`.
pub fn interesting(candidate: &[u8]) -> bool {
    let Ok(language) = Language::by_name("java") else {
        return false;
    };
    let Ok(tree) = crate::tree::parse(language, candidate.to_vec(), Preprocess::none()) else {
        return false;
    };
    if tree.input_errors() > 0 {
        return false;
    }
    let Some(program) = Program::read(&tree) else {
        return false;
    };
    program.compiles()
        && program.run("en") == Some(Ending::Normal)
        && program.run("hu") == Some(Ending::Thrown)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Type {
    Void,
    Text,
    Texts,
    Boolean,
    /// An instance of the class (its default constructor).
    Object,
    Throwable,
}

/// The exceptions `new` may make (with no argument or a message).
const EXCEPTIONS: &[&str] = &[
    "Exception",
    "RuntimeException",
    "IllegalArgumentException",
    "IllegalStateException",
    "UnsupportedOperationException",
    "Error",
];

struct Method {
    name: String,
    returns: Type,
    parameters: Vec<(String, Type)>,
    body: NodeId,
    is_static: bool,
    is_public: bool,
}

struct Program<'t> {
    tree: &'t Tree,
    class_name: String,
    methods: Vec<Method>,
}

fn named(tree: &Tree, node: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    tree.children(node)
        .filter(move |&child| tree.is_named(child) && !tree.is_extra(child))
}

fn field(tree: &Tree, node: NodeId, name: &str) -> Option<NodeId> {
    tree.children(node)
        .find(|&child| tree.field_name(child) == Some(name))
}

fn text(tree: &Tree, node: NodeId) -> &str {
    std::str::from_utf8(tree.text(node)).unwrap_or("")
}

impl<'t> Program<'t> {
    /// The program's one class and its methods, if it is written in the part of Java modelled.
    fn read(tree: &'t Tree) -> Option<Program<'t>> {
        let mut classes = named(tree, tree.root());
        let class = classes.next()?;
        if classes.next().is_some() || tree.kind(class) != "class_declaration" {
            return None;
        }
        let class_name = text(tree, field(tree, class, "name")?).to_string();
        let mut methods: Vec<Method> = Vec::new();
        for member in named(tree, field(tree, class, "body")?) {
            let method = read_method(tree, member)?;
            if methods.iter().any(|m| m.name == method.name) {
                return None;
            }
            methods.push(method);
        }
        Some(Program {
            tree,
            class_name,
            methods,
        })
    }

    fn method(&self, name: &str) -> Option<&Method> {
        self.methods.iter().find(|m| m.name == name)
    }

    /// Whether javac would compile it (as far as the model knows) and java could run `main`.
    fn compiles(&self) -> bool {
        let main_ok = self.method("main").is_some_and(|main| {
            main.is_public
                && main.is_static
                && main.returns == Type::Void
                && main.parameters.len() == 1
                && main.parameters[0].1 == Type::Texts
        });
        main_ok
            && self.methods.iter().all(|method| {
                let mut checker = Checker {
                    program: self,
                    returns: method.returns,
                    scopes: vec![
                        method
                            .parameters
                            .iter()
                            .map(|(name, kind)| (name.clone(), (*kind, true)))
                            .collect(),
                    ],
                };
                let unique = {
                    let mut names: Vec<&String> = method.parameters.iter().map(|p| &p.0).collect();
                    names.sort();
                    names.windows(2).all(|pair| pair[0] != pair[1])
                };
                unique
                    && checker
                        .block(method.body)
                        .is_some_and(|completes| !completes || method.returns == Type::Void)
            })
    }

    /// How `main` ends when run with `argument`, if the model can tell.
    fn run(&self, argument: &str) -> Option<Ending> {
        let main = self.method("main")?;
        let arguments = vec![Value::Texts(vec![argument.to_string()])];
        let mut interpreter = Interpreter {
            program: self,
            calls: 0,
        };
        match interpreter.call(main, arguments) {
            Ok(_) => Some(Ending::Normal),
            Err(Stop::Thrown) => Some(Ending::Thrown),
            Err(Stop::Unknown) => None,
        }
    }
}

fn read_method(tree: &Tree, member: NodeId) -> Option<Method> {
    if tree.kind(member) != "method_declaration" {
        return None;
    }
    let modifiers = tree
        .children(member)
        .find(|&child| tree.kind(child) == "modifiers")
        .map(|m| text(tree, m))
        .unwrap_or("");
    let words: Vec<&str> = modifiers.split_whitespace().collect();
    let mut parameters = Vec::new();
    for parameter in named(tree, field(tree, member, "parameters")?) {
        if tree.kind(parameter) != "formal_parameter" {
            return None;
        }
        let kind = type_of_node(tree, field(tree, parameter, "type")?)?;
        let name = text(tree, field(tree, parameter, "name")?).to_string();
        parameters.push((name, kind));
    }
    Some(Method {
        name: text(tree, field(tree, member, "name")?).to_string(),
        returns: type_of_node(tree, field(tree, member, "type")?)?,
        parameters,
        body: field(tree, member, "body")?,
        is_static: words.contains(&"static"),
        is_public: words.contains(&"public"),
    })
}

/// A declared type: `void`, `String` or `String[]`.
fn type_of_node(tree: &Tree, node: NodeId) -> Option<Type> {
    match (
        tree.kind(node),
        text(tree, node).replace(char::is_whitespace, "").as_str(),
    ) {
        ("void_type", _) => Some(Type::Void),
        ("type_identifier", "String") => Some(Type::Text),
        ("array_type", "String[]") => Some(Type::Texts),
        _ => None,
    }
}

/// The static checks of one method's body.
struct Checker<'p, 't> {
    program: &'p Program<'t>,
    returns: Type,
    /// The names declared, innermost block last: their types and whether they have a value.
    scopes: Vec<HashMap<String, (Type, bool)>>,
}

impl Checker<'_, '_> {
    fn tree(&self) -> &Tree {
        self.program.tree
    }

    /// Checks a block's statements; whether it can complete normally (`None`: it does not
    /// compile).
    fn block(&mut self, block: NodeId) -> Option<bool> {
        self.scopes.push(HashMap::new());
        let mut completes = true;
        let statements: Vec<NodeId> = named(self.tree(), block).collect();
        for statement in statements {
            if !completes {
                return None;
            }
            completes = self.statement(statement)?;
        }
        self.scopes.pop();
        Some(completes)
    }

    fn statement(&mut self, statement: NodeId) -> Option<bool> {
        let tree = self.program.tree;
        match tree.kind(statement) {
            "block" => self.block(statement),
            "local_variable_declaration" => {
                let declared = type_of_node(tree, field(tree, statement, "type")?)?;
                for declarator in named(tree, statement).skip(1) {
                    let name = text(tree, field(tree, declarator, "name")?).to_string();
                    let value = field(tree, declarator, "value");
                    if let Some(value) = value
                        && self.expression(value)? != declared
                    {
                        return None;
                    }
                    if self.scopes.iter().any(|scope| scope.contains_key(&name)) {
                        return None;
                    }
                    let scope = self.scopes.last_mut()?;
                    scope.insert(name, (declared, value.is_some()));
                }
                Some(true)
            }
            "expression_statement" => {
                let expression = named(tree, statement).next()?;
                let allowed = ["method_invocation", "object_creation_expression"];
                (allowed.contains(&tree.kind(expression)) && self.expression(expression).is_some())
                    .then_some(true)
            }
            "if_statement" => {
                let condition = field(tree, statement, "condition")?;
                if self.expression(condition)? != Type::Boolean {
                    return None;
                }
                let then = self.statement(field(tree, statement, "consequence")?)?;
                match field(tree, statement, "alternative") {
                    Some(alternative) => Some(self.statement(alternative)? || then),
                    None => Some(true),
                }
            }
            "return_statement" => {
                let value = named(tree, statement).next();
                match (value, self.returns) {
                    (None, Type::Void) => Some(false),
                    (Some(value), returns) if returns != Type::Void => {
                        (self.expression(value)? == returns).then_some(false)
                    }
                    _ => None,
                }
            }
            "throw_statement" => {
                let thrown = self.expression(named(tree, statement).next()?)?;
                (thrown == Type::Throwable).then_some(false)
            }
            _ => None,
        }
    }

    /// The type of an expression, if it compiles.
    fn expression(&mut self, expression: NodeId) -> Option<Type> {
        let tree = self.program.tree;
        match tree.kind(expression) {
            "string_literal" => Some(Type::Text),
            "true" | "false" => Some(Type::Boolean),
            "identifier" => {
                let name = text(tree, expression);
                let (kind, initialized) = self.scopes.iter().rev().find_map(|s| s.get(name))?;
                initialized.then_some(*kind)
            }
            "parenthesized_expression" => self.expression(named(tree, expression).next()?),
            "array_access" => {
                let array = self.expression(field(tree, expression, "array")?)?;
                let index = field(tree, expression, "index")?;
                (array == Type::Texts && tree.kind(index) == "decimal_integer_literal")
                    .then_some(Type::Text)
            }
            "method_invocation" => self.invocation(expression),
            "object_creation_expression" => {
                let class = text(tree, field(tree, expression, "type")?);
                let arguments = self.arguments(expression)?;
                if class == self.program.class_name && arguments.is_empty() {
                    Some(Type::Object)
                } else if EXCEPTIONS.contains(&class)
                    && (arguments.is_empty() || arguments == [Type::Text])
                {
                    Some(Type::Throwable)
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    fn arguments(&mut self, call: NodeId) -> Option<Vec<Type>> {
        let tree = self.program.tree;
        let list = field(tree, call, "arguments")?;
        let arguments: Vec<NodeId> = named(tree, list).collect();
        arguments
            .into_iter()
            .map(|argument| self.expression(argument).filter(|&t| t != Type::Void))
            .collect()
    }

    /// A call: of the class's methods (without an object, or on the class's name), of
    /// `System.out.println`, or of `equals` and `concat` on a `String`.
    fn invocation(&mut self, call: NodeId) -> Option<Type> {
        let tree = self.program.tree;
        let name = text(tree, field(tree, call, "name")?).to_string();
        let arguments = self.arguments(call)?;
        let object = field(tree, call, "object");
        let on_class = object.is_some_and(|object| {
            text(tree, object) == self.program.class_name
                && !self
                    .scopes
                    .iter()
                    .any(|s| s.contains_key(&self.program.class_name))
        });
        match object {
            None => {}
            Some(_) if on_class => {}
            Some(object) if text(tree, object) == "System.out" => {
                return (name == "println" && arguments.len() <= 1).then_some(Type::Void);
            }
            Some(object) => {
                if self.expression(object)? != Type::Text {
                    return None;
                }
                return match (name.as_str(), &arguments[..]) {
                    ("equals", [_]) => Some(Type::Boolean),
                    ("concat", [Type::Text]) => Some(Type::Text),
                    _ => None,
                };
            }
        }
        let method = self.program.method(&name)?;
        let types: Vec<Type> = method.parameters.iter().map(|p| p.1).collect();
        (method.is_static && types == arguments).then_some(method.returns)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    Normal,
    Thrown,
}

#[derive(Clone, Debug, PartialEq)]
enum Value {
    Void,
    Text(String),
    Texts(Vec<String>),
    Boolean(bool),
    /// An object of the class or an exception.
    Object,
}

/// Why running stopped early: an exception, or something the model cannot run.
enum Stop {
    Thrown,
    Unknown,
}

/// What running a statement led to.
enum Flow {
    Next,
    Return(Value),
}

/// Runs the methods of a program that compiles.
struct Interpreter<'p, 't> {
    program: &'p Program<'t>,
    calls: usize,
}

type Frame = Vec<HashMap<String, Value>>;

impl Interpreter<'_, '_> {
    fn call(&mut self, method: &Method, arguments: Vec<Value>) -> Result<Value, Stop> {
        self.calls += 1;
        if self.calls > MAX_CALLS {
            return Err(Stop::Thrown);
        }
        let names = method.parameters.iter().map(|p| p.0.clone());
        let mut frame: Frame = vec![names.zip(arguments).collect()];
        let flow = self.statement(method.body, &mut frame);
        self.calls -= 1;
        match flow? {
            Flow::Next => Ok(Value::Void),
            Flow::Return(value) => Ok(value),
        }
    }

    fn statement(&mut self, statement: NodeId, frame: &mut Frame) -> Result<Flow, Stop> {
        let tree = self.program.tree;
        let unknown = || Stop::Unknown;
        match tree.kind(statement) {
            "block" => {
                frame.push(HashMap::new());
                for inner in named(tree, statement) {
                    if let Flow::Return(value) = self.statement(inner, frame)? {
                        frame.pop();
                        return Ok(Flow::Return(value));
                    }
                }
                frame.pop();
                Ok(Flow::Next)
            }
            "local_variable_declaration" => {
                for declarator in named(tree, statement).skip(1) {
                    let name = text(tree, field(tree, declarator, "name").ok_or_else(unknown)?);
                    let value = match field(tree, declarator, "value") {
                        Some(value) => self.expression(value, frame)?,
                        None => Value::Void,
                    };
                    frame
                        .last_mut()
                        .ok_or_else(unknown)?
                        .insert(name.to_string(), value);
                }
                Ok(Flow::Next)
            }
            "expression_statement" => {
                self.expression(named(tree, statement).next().ok_or_else(unknown)?, frame)?;
                Ok(Flow::Next)
            }
            "if_statement" => {
                let condition = field(tree, statement, "condition").ok_or_else(unknown)?;
                match self.expression(condition, frame)? {
                    Value::Boolean(true) => self.statement(
                        field(tree, statement, "consequence").ok_or_else(unknown)?,
                        frame,
                    ),
                    Value::Boolean(false) => match field(tree, statement, "alternative") {
                        Some(alternative) => self.statement(alternative, frame),
                        None => Ok(Flow::Next),
                    },
                    _ => Err(Stop::Unknown),
                }
            }
            "return_statement" => match named(tree, statement).next() {
                Some(value) => Ok(Flow::Return(self.expression(value, frame)?)),
                None => Ok(Flow::Return(Value::Void)),
            },
            "throw_statement" => {
                self.expression(named(tree, statement).next().ok_or_else(unknown)?, frame)?;
                Err(Stop::Thrown)
            }
            _ => Err(Stop::Unknown),
        }
    }

    fn expression(&mut self, expression: NodeId, frame: &mut Frame) -> Result<Value, Stop> {
        let tree = self.program.tree;
        let unknown = || Stop::Unknown;
        match tree.kind(expression) {
            "string_literal" => {
                let literal = text(tree, expression);
                Ok(Value::Text(literal.trim_matches('"').to_string()))
            }
            "true" => Ok(Value::Boolean(true)),
            "false" => Ok(Value::Boolean(false)),
            "identifier" => {
                let name = text(tree, expression);
                frame
                    .iter()
                    .rev()
                    .find_map(|scope| scope.get(name))
                    .cloned()
                    .ok_or_else(unknown)
            }
            "parenthesized_expression" => {
                self.expression(named(tree, expression).next().ok_or_else(unknown)?, frame)
            }
            "array_access" => {
                let array =
                    self.expression(field(tree, expression, "array").ok_or_else(unknown)?, frame)?;
                let index = field(tree, expression, "index").ok_or_else(unknown)?;
                let index: usize = text(tree, index).parse().map_err(|_| Stop::Unknown)?;
                match array {
                    Value::Texts(texts) => texts
                        .get(index)
                        .cloned()
                        .map(Value::Text)
                        .ok_or(Stop::Thrown),
                    _ => Err(Stop::Unknown),
                }
            }
            "method_invocation" => self.invocation(expression, frame),
            "object_creation_expression" => {
                let list = field(tree, expression, "arguments").ok_or_else(unknown)?;
                for argument in named(tree, list) {
                    self.expression(argument, frame)?;
                }
                Ok(Value::Object)
            }
            _ => Err(Stop::Unknown),
        }
    }

    fn invocation(&mut self, call: NodeId, frame: &mut Frame) -> Result<Value, Stop> {
        let tree = self.program.tree;
        let unknown = || Stop::Unknown;
        let name = text(tree, field(tree, call, "name").ok_or_else(unknown)?);
        let object = field(tree, call, "object");
        let receiver = match object {
            Some(object) if text(tree, object) == "System.out" => Some(Value::Void),
            Some(object)
                if text(tree, object) == self.program.class_name
                    && !frame
                        .iter()
                        .any(|scope| scope.contains_key(&self.program.class_name)) =>
            {
                None
            }
            Some(object) => Some(self.expression(object, frame)?),
            None => None,
        };
        let list = field(tree, call, "arguments").ok_or_else(unknown)?;
        let mut arguments = Vec::new();
        for argument in named(tree, list) {
            arguments.push(self.expression(argument, frame)?);
        }
        match (receiver, name, &arguments[..]) {
            (None, _, _) => {
                let method = self.program.method(name).ok_or_else(unknown)?;
                self.call(method, arguments)
            }
            (Some(Value::Void), "println", _) => Ok(Value::Void),
            (Some(Value::Text(text)), "equals", [other]) => {
                Ok(Value::Boolean(*other == Value::Text(text)))
            }
            (Some(Value::Text(text)), "concat", [Value::Text(more)]) => {
                Ok(Value::Text(text + more))
            }
            _ => Err(Stop::Unknown),
        }
    }
}
