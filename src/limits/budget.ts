/**
 * The budget, as the rest of postbot imports it: an account's budget (./account-budget.ts)
 * and the process's book that makes it (./budget-book.ts). They are two files because the
 * book makes budgets and a budget reads the book (through ./book.ts), and no two files may
 * import each other.
 */
export * from "./account-budget.ts";
export { BudgetBook, BUDGET_NAMESPACES } from "./budget-book.ts";
